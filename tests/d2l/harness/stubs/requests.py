"""Stand-in for requests: get(url) serves the file named like the URL's last part from $D2L_HARNESS_HUB."""
import os


class Response:
    status_code = 200

    def __init__(self, content):
        self.content = content
        self.headers = {'content-length': str(len(content))}

    def iter_content(self, chunk_size=1024):
        for i in range(0, len(self.content), chunk_size):
            yield self.content[i:i + chunk_size]

    def raise_for_status(self):
        return None


def get(url, *args, **kwargs):
    hub = os.environ.get('D2L_HARNESS_HUB', '')
    path = os.path.join(hub, url.rstrip('/').split('/')[-1])
    if not os.path.isfile(path):
        raise OSError('d2l harness: no local copy of %s (looked for %s)' % (url, path))
    with open(path, 'rb') as f:
        return Response(f.read())
