"""Image decoding and encoding with Pillow, as OpenCV's ``imdecode``/``imencode`` do it (channel order, grayscale
weights): used by ``mx.image``, ``mx.recordio``'s pack_img/unpack_img and the image record iterators."""
import io as _io
import logging as _logging

import numpy as np

from .base import MXNetError, MXNetTypeError


def _pil():
    try:
        from PIL import Image  # reason: optional dependency, loaded on first use
    except ImportError:
        raise ImportError('mxcompat decodes and encodes images with Pillow, which is not installed: '
                          'pip install pillow') from None
    # MXNet's OpenCV decoder logs nothing; Pillow's plugins log every PNG chunk at DEBUG, which a script calling
    # logging.basicConfig(level=logging.DEBUG) would print per image. Quiet them unless the user set a level.
    pil_log = _logging.getLogger('PIL')
    if pil_log.level == _logging.NOTSET:
        pil_log.setLevel(_logging.INFO)
    return Image


def warm_up():
    """Load Pillow and its common format plugins now (about 50 ms), so that an image iterator's first batch does not
    pay for it, as MXNet's OpenCV is loaded with MXNet. Without Pillow nothing happens here: decoding says what to
    install when it is asked for."""
    try:
        _pil().preinit()
    except ImportError:
        pass


def _gray_png(rgb):
    """libpng's png_set_rgb_to_gray(1, 0.299, 0.587) on 8-bit data (what OpenCV asks for)."""
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((9797 * r + 19234 * g + 3737 * b) >> 15).astype(np.uint8)


def _gray_cv(rgb):
    """OpenCV's fixed-point BGR2GRAY (14-bit weights, rounded)."""
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)


def decode_numpy(buf, flag=1, bgr=False):
    """Decode ``buf`` like ``cv2.imdecode(buf, flag)``: HxW (flag 0), HxWx3 (flag > 0) or the stored channels
    (flag < 0); RGB order unless ``bgr``. Raises MXNetError for data that is not an image."""
    Image = _pil()
    try:
        im = Image.open(_io.BytesIO(buf))
        fmt = im.format
        if flag == 0 and fmt == 'JPEG' and im.mode in ('RGB', 'L'):
            im.draft('L', im.size)  # libjpeg's own grayscale output, as OpenCV requests for JPEG
        im.load()
    except Exception:  # noqa: BLE001  (Pillow raises many kinds for broken data)
        raise MXNetError('Check failed: !res.empty(): Decoding failed. Invalid image file.') from None
    mode = im.mode
    if mode == 'RGB' and flag != 0 and bgr:  # Pillow packs BGR itself: no channel shuffle (4x faster)
        return np.frombuffer(im.tobytes('raw', 'BGR'), np.uint8).reshape(im.size[1], im.size[0], 3).copy()
    if mode.startswith('I;16') or mode in ('I', 'F'):
        arr = np.asarray(im)
        arr = (arr.astype(np.int64) >> 8 if mode != 'F' else arr).clip(0, 255).astype(np.uint8)
        chans = 1
    else:
        if mode == 'P':
            im = im.convert('RGBA' if 'transparency' in im.info else 'RGB')
        elif mode == '1':
            im = im.convert('L')
        elif mode == 'LA':
            im = im.convert('RGBA')
        elif mode not in ('L', 'RGB', 'RGBA'):
            im = im.convert('RGB')
        arr = np.asarray(im)
        chans = 1 if arr.ndim == 2 else arr.shape[2]
    if flag == 0:
        if chans == 1:
            return np.ascontiguousarray(arr)
        rgb = arr[..., :3]
        return _gray_png(rgb) if fmt == 'PNG' else _gray_cv(rgb)
    if chans == 1:
        arr = np.repeat(arr[:, :, None], 3, axis=2)
        if flag < 0:
            return np.ascontiguousarray(arr[:, :, 0])
    elif chans == 4 and flag > 0:
        arr = arr[..., :3]
    if bgr:
        arr = arr[..., [2, 1, 0, 3][:arr.shape[2]]]
    return np.ascontiguousarray(arr)


def encode_numpy(img, quality=95, img_fmt='.jpg'):
    """Encode a uint8 HxW / HxWxC numpy image in OpenCV's BGR(A) order, like ``cv2.imencode``."""
    Image = _pil()
    img = np.asarray(img)
    if img.dtype != np.uint8:
        raise MXNetTypeError('pack_img: only uint8 images can be encoded, got %s' % img.dtype)
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim == 3:
        img = img[..., [2, 1, 0, 3][:img.shape[2]]]
    ext = img_fmt.upper()
    out = _io.BytesIO()
    try:
        pic = Image.fromarray(np.ascontiguousarray(img))
        if ext in ('.JPG', '.JPEG'):
            pic.save(out, format='JPEG', quality=int(quality))
        elif ext == '.PNG':
            pic.save(out, format='PNG', compress_level=min(max(int(quality), 0), 9))
        else:
            fmt = Image.registered_extensions().get(img_fmt.lower())
            if fmt is None:
                raise ValueError('unknown image format %r' % img_fmt)
            pic.save(out, format=fmt)
    except Exception as e:  # noqa: BLE001
        raise AssertionError('failed to encode image: %s' % e) from None
    return out.getvalue()
