"""mxcompat._imagecodec: images decoded with Pillow as MXNet decodes them with OpenCV, without Pillow's log lines."""
import subprocess
import sys

import pytest

import mxcompat as mx

SCRIPT = r'''
import logging, sys
logging.basicConfig(level=logging.DEBUG)
if sys.argv[1] == 'user':
    logging.getLogger('PIL').setLevel(logging.DEBUG)
import numpy as np
import mxcompat as mx
buf = mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, 0, 0), np.zeros((4, 4, 3), np.uint8), img_fmt='.png')
_, img = mx.recordio.unpack_img(buf)
logging.info('decoded %s', img.shape)
'''


def _stderr(mode):
    return subprocess.run([sys.executable, '-c', SCRIPT, mode], capture_output=True, text=True,
                          check=True).stderr


def test_decoding_logs_nothing_under_a_debug_root_logger():
    # MXNet's decoder writes no log records; a script with logging.basicConfig(level=DEBUG) (MXNet's
    # example/image-classification) printed Pillow's "STREAM b'IHDR'" lines for every image.
    err = _stderr('default')
    assert 'PIL' not in err
    assert 'INFO:root:decoded (4, 4, 3)' in err


def test_a_level_the_user_set_on_pillow_stays():
    assert "DEBUG:PIL.PngImagePlugin:STREAM b'IHDR'" in _stderr('user')


def test_warm_up_loads_pillow_and_its_plugins():
    code = ('import sys, mxcompat._imagecodec as c; assert "PIL.JpegImagePlugin" not in sys.modules; c.warm_up(); '
            'assert "PIL.JpegImagePlugin" in sys.modules and "PIL.PngImagePlugin" in sys.modules')
    subprocess.run([sys.executable, '-c', code], check=True)


def test_image_iterator_without_pillow_fails_when_it_decodes(monkeypatch, tmp_path):
    (tmp_path / 'a.jpg').write_bytes(b'not decoded')
    monkeypatch.setitem(sys.modules, 'PIL', None)
    mx._imagecodec.warm_up()  # quiet: Pillow is asked for when an image is decoded
    it = mx.image.ImageIter(1, (3, 8, 8), imglist=[[0.0, 'a.jpg']], path_root=str(tmp_path))
    with pytest.raises(RuntimeError, match='pip install pillow'):
        it.next()
