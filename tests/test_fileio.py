"""mxcompat/_fileio.py: archive extraction shared by the dataset, embedding and model downloads."""
import tarfile
import zipfile

from mxcompat._fileio import extract_archive


def test_extract_zip_and_tar_gz(tmp_path):
    (tmp_path / 'src').mkdir()
    (tmp_path / 'src' / 'a.txt').write_text('zip me')
    with zipfile.ZipFile(tmp_path / 'x.zip', 'w') as zf:
        zf.write(tmp_path / 'src' / 'a.txt', 'dir/a.txt')
    with tarfile.open(tmp_path / 'x.tar.gz', 'w:gz') as tar:
        tar.add(str(tmp_path / 'src' / 'a.txt'), arcname='dir/b.txt')
    extract_archive(str(tmp_path / 'x.zip'), str(tmp_path / 'out'))
    extract_archive(str(tmp_path / 'x.tar.gz'), str(tmp_path / 'out'))
    assert (tmp_path / 'out' / 'dir' / 'a.txt').read_text() == 'zip me'
    assert (tmp_path / 'out' / 'dir' / 'b.txt').read_text() == 'zip me'
