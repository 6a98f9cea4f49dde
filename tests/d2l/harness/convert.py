"""Extract the MXNet code cells of d2l-en chapters into one Python script per section.

A cell is a fenced block opened by a line starting with ```` ```{.python .input````. Its tab is given by its
first line: ``%%tab mxnet`` / ``%%tab all`` / ``%%tab pytorch, mxnet`` (chapters that load ``d2lbook.tab``) or
``#@tab mxnet`` / ``#@tab all`` (the older convention still used in some chapters). A cell with no tab line belongs
to the default tab, MXNet (the first tab in d2l's config). Notebook semantics kept: the value of a cell's last
expression statement is displayed (printed with repr, nothing for None, nothing when the line ends with ';').
IPython magics (``%matplotlib``, ``%load_ext``, ``%%tab``) and ``tab.interact_select(...)`` are dropped; a shell
line ``!cmd`` becomes a call to the prelude's ``shell('cmd')``.

Usage:  python convert.py SOURCE OUTDIR [chapter_dir ...]
SOURCE is a d2l-en checkout directory or ``GITDIR@REV`` (e.g. a bare mirror and the tag ``v1.0.3``).
"""
import ast
import os
import re
import subprocess
import sys

CELL_OPEN = re.compile(r'^```\{\.python \.input.*\}\s*$')
TAB_LINE = re.compile(r'^\s*(%%tab|#@tab)\s+(.*?)\s*$')
PRELUDE = 'from d2l_harness_prelude import display as __d2l_display__, shell as __d2l_shell__, tab  # noqa\n'


class Source:
    """Reads files of a d2l-en tree: a directory or ``gitdir@rev``."""

    def __init__(self, spec):
        self.gitdir, self.rev, self.root = None, None, None
        if '@' in spec and not os.path.isdir(spec):
            self.gitdir, self.rev = spec.rsplit('@', 1)
        else:
            self.root = spec

    def list(self):
        if self.root:
            out = []
            for base, _, files in os.walk(self.root):
                out += [os.path.relpath(os.path.join(base, f), self.root) for f in files]
            return sorted(out)
        res = subprocess.run(['git', '-C', self.gitdir, 'ls-tree', '-r', '--name-only', self.rev],
                             check=True, capture_output=True, text=True)
        return res.stdout.split()

    def read(self, path):
        if self.root:
            with open(os.path.join(self.root, path), encoding='utf-8') as f:
                return f.read()
        res = subprocess.run(['git', '-C', self.gitdir, 'show', '%s:%s' % (self.rev, path)],
                             check=True, capture_output=True, text=True)
        return res.stdout

    def read_bytes(self, path):
        if self.root:
            with open(os.path.join(self.root, path), 'rb') as f:
                return f.read()
        return subprocess.run(['git', '-C', self.gitdir, 'show', '%s:%s' % (self.rev, path)],
                              check=True, capture_output=True).stdout


def cells(markdown):
    """The code cells of a markdown file, as lists of lines."""
    out, cur = [], None
    for line in markdown.splitlines():
        if cur is None:
            if CELL_OPEN.match(line):
                cur = []
        elif line.startswith('```'):
            out.append(cur)
            cur = None
        else:
            cur.append(line)
    return out


def cell_tabs(lines):
    """The tabs a cell belongs to (a set of names, 'all' included as is)."""
    for line in lines:
        if not line.strip():
            continue
        m = TAB_LINE.match(line)
        if m:
            return {t.strip() for t in m.group(2).split(',') if t.strip()}
        break
    return {'mxnet'}


def is_mxnet(lines):
    tabs = cell_tabs(lines)
    return 'mxnet' in tabs or 'all' in tabs


def clean(lines):
    """Drop magics and tab lines; turn ``!cmd`` lines into shell() calls."""
    out = []
    for line in lines:
        s = line.strip()
        if TAB_LINE.match(line) or s.startswith('%') or s.startswith('tab.interact_select'):
            continue
        if s.startswith('!'):
            indent = line[:len(line) - len(line.lstrip())]
            out.append('%s__d2l_shell__(%r)' % (indent, s[1:].strip()))
            continue
        out.append(line)
    return out


def add_display(code):
    """Wrap the cell's last expression statement in __d2l_display__(...) (Jupyter shows its value)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return code
    last = tree.body[-1]
    lines = code.split('\n')
    end = last.end_lineno
    if lines[end - 1].rstrip().endswith(';'):
        return code
    seg_lines = lines[last.lineno - 1:end]
    seg_lines[-1] = seg_lines[-1][:last.end_col_offset]
    seg_lines[0] = seg_lines[0][last.col_offset:]
    expr = '\n'.join(seg_lines)
    tail = lines[end - 1][last.end_col_offset:]
    head = lines[last.lineno - 1][:last.col_offset]
    new = lines[:last.lineno - 1] + ['%s__d2l_display__((%s))%s' % (head, expr, tail)] + lines[end:]
    return '\n'.join(new)


def convert_section(markdown):
    """The script of one section, or None when it has no MXNet cell."""
    parts = []
    for i, lines in enumerate(cells(markdown)):
        if not is_mxnet(lines):
            continue
        body = '\n'.join(clean(lines)).strip('\n')
        if not body.strip():
            continue
        parts.append('# ---- cell %d ----\n%s\n' % (i, add_display(body)))
    if not parts:
        return None
    return PRELUDE + '\n'.join(parts)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    src, outdir, chapters = Source(argv[0]), argv[1], argv[2:]
    os.makedirs(outdir, exist_ok=True)
    written = []
    for path in src.list():
        if not (path.startswith('chapter_') and path.endswith('.md')):
            continue
        chapter, name = path.split('/', 1)
        if chapters and chapter not in chapters and chapter[len('chapter_'):] not in chapters:
            continue
        script = convert_section(src.read(path))
        if script is None:
            continue
        target = os.path.join(outdir, '%s__%s.py' % (chapter[len('chapter_'):], name[:-3].replace('/', '_')))
        with open(target, 'w', encoding='utf-8') as f:
            f.write(script)
        written.append(target)
    print('%d section scripts in %s' % (len(written), outdir))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
