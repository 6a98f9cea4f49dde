"""Synthetic stand-ins for the data sets of D2L v0.17.6's NLP chapters (pretraining and applications), in the
originals' formats; make_data.py calls ``write(base, profile)`` for each size profile. Into base/hub (served to
d2l.download() by the requests stand-in, by URL basename):

  ptb.zip               ptb/ptb.{train,valid,test}.txt: one sentence a line, ' w1 w2 ... wn ' (lower case, '<unk>',
                        'N' for numbers), as PTB's Mikolov release that d2l repackages
  wikitext-2-v1.zip     wikitext-2/wiki.{train,valid,test}.tokens: ' = Title = ' heading lines, ' ' blank lines and
                        paragraph lines whose sentences end in ' . ' (d2l's _read_wiki splits on that)
  aclImdb_v1.tar.gz     aclImdb/{train,test}/{pos,neg}/ID_RATING.txt, one review a file
  snli_1.0.zip          snli_1.0/snli_1.0_{train,dev,test}.txt: tab-separated, the header row of the original, the
                        label (or '-' for no consensus) then the binary parses '( ( A man ) ( ... ) )'
  glove.6B.50d.zip, glove.6B.100d.zip
                        glove.6B.{50,100}d/vec.txt, d2l's repackaging: 'token v1 ... vd' a line (the 50d file has
                        more than 3368 tokens: the similarity section prints idx_to_token[3367])
  bert.small.zip        bert.small/vocab.json (idx_to_token) and bert.small/pretrained.params: d2l's BERTModel
                        with the book's sizes (256 hiddens, 512 FFN hiddens, 4 heads, 2 layers, max_len 512),
                        initialized by REAL MXNet (the oracle) after mx.random.seed(0) and saved with
                        save_parameters, so both sides load the same weights

Every text is drawn from fixed seeds over small word lists, so the files are the same on every run. Sizes are the
same in every profile (the sections of these chapters run in 'small'), chosen so that each section runs in well
under a minute on MXNet.
"""
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile

import numpy as np

from make_data import write_zip

# content words; the ones the sections look up are in here ('join', 'chip', 'beautiful', 'crane', ...)
COMMON = ('the of and to a in that is was he for it with as his on be at by i this had not are but from or have '
          'an they which one you were her all she there would their we him been has when who will more no if out '
          'so said what up its about into than them can only other new some could time these two may then do '
          'first any my now such like our over man me even most made after also did many before must through '
          'back years where much your way well down should because each just those people how too little state '
          'good very make world still own see men work long get here between both life being under never day '
          'same another know while last might us great old year off come since against go came right used take '
          'three states himself few house use during without again place american around however home small '
          'found thought went say part once general high upon school every does got united left number course '
          'war until always away something fact though water less public put think almost hand enough far took '
          'head yet government system better set told nothing night end why called didnt eyes find going look '
          'asked later knew point next program city business give group toward young days let room president side '
          'social given present several order national possible rather second face per among form important often '
          'things looked early white case john become large big need four within felt along children saw best '
          'church ever least power development light thing seemed family interest want members mind country area '
          'others done turned although open god service problem certain kind different thus began door help '
          'sense means whole matter perhaps itself york times law human line above name example action company '
          'hands local show whether five history gave today either act feet across taken past quite anything '
          'having seen death experience body word half really week field am car words already information tell '
          'together college shall money period held keep sure free seems real behind cannot miss political air '
          'question making office brought whose special heard major problems ago became federal available known '
          'job market chip join stock shares prices trading investors bank buy sell billion million percent '
          'share rose fell board director executive chairman firm sales profit quarter computer chips semiconductor '
          'intel memory microprocessor baby babies infant child mother boy girl beautiful lovely gorgeous pretty '
          'crane flying driver bird construction woman son daughter father king queen beijing china tokyo japan '
          'paris france bad worst worse biggest bigger best better good did go went gone do done ran run').split()
WORDS = list(dict.fromkeys(COMMON))
POSITIVE = ('great excellent wonderful amazing brilliant superb enjoyed loved fantastic beautiful perfect '
            'touching funny best favorite masterpiece recommend').split()
NEGATIVE = ('bad terrible awful boring worst waste poor dull horrible stupid disappointing mess weak '
            'annoying pointless lame').split()
FILM = ('movie film story plot acting actors actor actress director scenes scene characters character ending '
        'script music camera cast role performance this is so was it the a and of to i in but not').split()
SNLI_SUBJ = ['A man', 'A woman', 'A boy', 'A girl', 'Two men', 'Two women', 'A dog', 'A child', 'Some people',
             'An old man', 'A young woman', 'A group of people']
SNLI_VERB = ['is playing a guitar', 'is riding a bike', 'is eating food', 'is walking down the street',
             'is sitting on a bench', 'is running in the park', 'is reading a book', 'is swimming in the water',
             'is cooking dinner', 'is sleeping on the couch', 'is climbing a rock', 'is talking on a phone']
SNLI_PLACE = ['outside', 'in a city', 'at the beach', 'near a house', 'in the snow', 'on a stage']


def _zipf_choices(rng, words, k, s=1.0):
    weights = [1.0 / (i + 1) ** s for i in range(len(words))]
    return rng.choices(words, weights=weights, k=k)


def _filler(n, seed):
    """``n`` distinct made-up lower-case words (syllable strings), for vocabularies larger than WORDS."""
    rng = random.Random(seed)
    syl = ['ka', 'lo', 'mi', 're', 'tu', 'sa', 'ne', 'po', 'di', 'ga', 'ri', 'ven', 'tor', 'lan', 'mar', 'sel']
    out, seen = [], set(WORDS)
    while len(out) < n:
        w = ''.join(rng.choice(syl) for _ in range(rng.randint(2, 4)))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out




def ptb(path, n_train, seed=0):
    rng = random.Random(seed)
    vocab = WORDS + _filler(300, seed + 1)

    def sentence():
        toks = _zipf_choices(rng, vocab, rng.randint(4, 26))
        toks = [t if rng.random() > 0.04 else rng.choice(['<unk>', 'N']) for t in toks]
        return ' ' + ' '.join(toks) + ' '
    parts = {}
    for name, n in (('train', n_train), ('valid', n_train // 10), ('test', n_train // 10)):
        parts['ptb/ptb.%s.txt' % name] = ''.join(sentence() + '\n' for _ in range(n))
    write_zip(path, parts)


def wikitext2(path, n_paragraphs, seed=0):
    rng = random.Random(seed)
    vocab = [w for w in WORDS] + _filler(100, seed + 2)

    def paragraph():
        sents = []
        for _ in range(rng.randint(2, 6)):
            toks = _zipf_choices(rng, vocab, rng.randint(4, 18))
            toks[0] = toks[0].capitalize()
            if rng.random() < 0.3:
                toks.insert(rng.randint(1, len(toks)), ',')
            sents.append(' '.join(toks))
        return ' ' + ' . '.join(sents) + ' . \n'

    def article(k):
        lines = [' \n', ' = %s = \n' % ' '.join(w.capitalize() for w in rng.sample(vocab[:200], 2)), ' \n']
        for j in range(k):
            if j and rng.random() < 0.3:
                lines += [' \n', ' = = %s = = \n' % rng.choice(vocab[:200]).capitalize(), ' \n']
            lines.append(paragraph())
            # headings-like one-sentence lines, which _read_wiki drops
            if rng.random() < 0.2:
                lines.append(' %s \n' % ' '.join(_zipf_choices(rng, vocab, 5)))
        return lines
    parts = {}
    for name, n in (('train', n_paragraphs), ('valid', n_paragraphs // 10), ('test', n_paragraphs // 10)):
        lines = []
        while sum(1 for x in lines if x.count(' . ') >= 1) < n:
            lines += article(rng.randint(3, 8))
        parts['wikitext-2/wiki.%s.tokens' % name] = ''.join(lines)
    write_zip(path, parts)


def aclimdb(path, n_train, n_test, seed=0):
    """aclImdb/{train,test}/{pos,neg}/ID_RATING.txt; positive reviews lean on POSITIVE words, negative on
    NEGATIVE ones, so that the classifiers learn something."""
    rng = random.Random(seed)
    files = []
    for split, n_per_class in (('train', n_train), ('test', n_test)):
        for label in ('pos', 'neg'):
            lean, other = (POSITIVE, NEGATIVE) if label == 'pos' else (NEGATIVE, POSITIVE)
            for i in range(n_per_class):
                words = []
                for _ in range(rng.randint(3, 9)):
                    s = _zipf_choices(rng, FILM, rng.randint(3, 9)) + [rng.choice(lean)]
                    if rng.random() < 0.15:
                        s.append(rng.choice(other))
                    s += _zipf_choices(rng, WORDS[:150], rng.randint(1, 5))
                    words.append(' '.join(s).capitalize() + '.')
                text = ' '.join(words)
                if rng.random() < 0.3:
                    text = text.replace('. ', '.<br /><br />', 1)
                rating = rng.randint(7, 10) if label == 'pos' else rng.randint(1, 4)
                files.append(('aclImdb/%s/%s/%d_%d.txt' % (split, label, i, rating), text.encode('utf-8')))
    files.append(('aclImdb/README', b'Synthetic stand-in for the Large Movie Review Dataset v1.0 layout.\n'))
    with open(path, 'wb') as raw:
        with tarfile.open(fileobj=raw, mode='w:gz') as tar:
            for name, data in files:
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(data), 1262304000, 0o644
                tar.addfile(info, io.BytesIO(data))


def _binary_parse(sentence):
    """A right-branching binary parse of ``sentence`` in SNLI's notation: '( A ( man ( ... ) ) )'."""
    toks = sentence.split()

    def build(t):
        return t[0] if len(t) == 1 else '( %s %s )' % (t[0], build(t[1:]))
    return build(toks)


def _parse(sentence):
    return '(ROOT (S %s))' % ' '.join('(X %s)' % t for t in sentence.split())


def snli(path, n_train, n_test, seed=0):
    rng = random.Random(seed)
    header = ('gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t'
              'sentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n')

    def row(i):
        subj, verb, place = rng.choice(SNLI_SUBJ), rng.choice(SNLI_VERB), rng.choice(SNLI_PLACE)
        premise = '%s %s %s .' % (subj, verb, place)
        label = rng.choice(['entailment', 'contradiction', 'neutral'])
        if label == 'entailment':
            hyp = '%s %s .' % (subj, verb)
        elif label == 'contradiction':
            hyp = '%s %s .' % (subj, rng.choice([v for v in SNLI_VERB if v != verb]))
        else:
            hyp = '%s %s %s .' % (subj, verb, rng.choice(['for fun', 'with a friend', 'after work', 'today']))
        gold = label if i % 100 != 99 else '-'  # no consensus: read_snli drops these rows
        votes = [label] * 4 + [rng.choice(['entailment', 'contradiction', 'neutral'])]
        return '\t'.join([gold, _binary_parse(premise), _binary_parse(hyp), _parse(premise), _parse(hyp),
                          premise, hyp, '%dr' % i, '%dr%d' % (i, i % 3)] + votes) + '\n'
    parts = {}
    for name, n in (('train', n_train), ('dev', n_test), ('test', n_test)):
        parts['snli_1.0/snli_1.0_%s.txt' % name] = header + ''.join(row(i) for i in range(n))
    parts['snli_1.0/README.txt'] = 'Synthetic stand-in for the SNLI 1.0 layout.\n'
    write_zip(path, parts)


ANALOGIES = [('man', 'woman', 'son', 'daughter'), ('man', 'woman', 'king', 'queen'),
             ('beijing', 'china', 'tokyo', 'japan'), ('beijing', 'china', 'paris', 'france'),
             ('bad', 'worst', 'big', 'biggest'), ('do', 'did', 'go', 'went')]
NEIGHBOURS = {'chip': ['chips', 'semiconductor', 'intel', 'microprocessor'], 'baby': ['babies', 'infant', 'boy'],
              'beautiful': ['lovely', 'gorgeous', 'pretty']}


def glove(path, folder, dim, n_tokens, seed=0):
    """d2l's repackaged GloVe: FOLDER/vec.txt, one 'token v1 ... vd' a line, 4 decimals. Neighbours and analogy
    pairs are placed near each other so that the similarity section finds them."""
    rng = np.random.RandomState(seed)
    extra = sorted(set(POSITIVE + NEGATIVE + FILM + ' '.join(SNLI_SUBJ + SNLI_VERB + SNLI_PLACE).lower().split()
                       + ['for', 'fun', 'with', 'friend', 'after', 'work', 'today', '.', ',', 'he', 'is', 'chips'])
                   - set(WORDS))
    tokens = list(WORDS) + extra
    tokens += _filler(max(0, n_tokens - len(tokens)), seed + 3)
    vecs = {t: rng.normal(0, 0.5, dim) for t in tokens}
    for w, near in NEIGHBOURS.items():
        for i, t in enumerate(near):
            vecs[t] = vecs[w] + rng.normal(0, 0.1 + 0.05 * i, dim)
    for a, b, c, d in ANALOGIES:
        vecs[d] = vecs[c] + vecs[b] - vecs[a] + rng.normal(0, 0.05, dim)
    lines = ''.join('%s %s\n' % (t, ' '.join('%.4f' % v for v in vecs[t])) for t in tokens)
    write_zip(path, {folder + '/vec.txt': lines})


BERT_SCRIPT = r'''
import sys, types, json
sys.modules.setdefault('pandas', types.ModuleType('pandas'))  # d2l imports it; the model does not use it
import mxnet as mx
from mxnet import init, np, npx
from d2l import mxnet as d2l
npx.set_np()
out, n_vocab = sys.argv[1], int(sys.argv[2])
mx.random.seed(0)
net = d2l.BERTModel(n_vocab, num_hiddens=256, ffn_num_hiddens=512, num_heads=4, num_layers=2, dropout=0.1,
                    max_len=512)
net.initialize(init.Xavier())
tokens = np.zeros((2, 8), dtype='int32')
net(tokens, np.zeros((2, 8), dtype='int32'), np.array([8, 6]), np.zeros((2, 2), dtype='int32'))
net.save_parameters(out)
'''


def bert_small(path, seed=0):
    """bert.small.zip: vocab.json over the words of the other data sets and pretrained.params made by the oracle
    (the d2l package that prepare wrote, WORK/d2lpkg, beside WORK/data/PROFILE)."""
    tokens = ['<unk>', '<pad>', '<mask>', '<cls>', '<sep>']
    words = (WORDS + POSITIVE + NEGATIVE + FILM + ' '.join(SNLI_SUBJ + SNLI_VERB + SNLI_PLACE).lower().split()
             + ['for', 'fun', 'with', 'friend', 'after', 'work', 'today', '.', ',', 'he', 'is'])
    tokens += [w for w in dict.fromkeys(words) if w not in tokens]
    work = os.path.abspath(os.path.join(os.path.dirname(path), '..', '..', '..'))  # WORK/data/PROFILE/hub
    d2lpkg = os.path.join(work, 'd2lpkg')
    if not os.path.isdir(d2lpkg):
        raise RuntimeError('make_data_nlp: bert.small needs the d2l package at %s (run_d2l.py prepare writes it)'
                           % d2lpkg)
    here = os.path.dirname(os.path.abspath(__file__))
    oracle = os.environ.get('D2L_ORACLE_PYTHON', '/root/.mxnet-oracle/bin/python')
    params = path + '.params.tmp'
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(here, 'stubs'), here, d2lpkg]),
               OMP_NUM_THREADS='1')
    subprocess.run([oracle, '-c', BERT_SCRIPT, params, str(len(tokens))], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    with open(params, 'rb') as f:
        blob = f.read()
    os.remove(params)
    write_zip(path, {'bert.small/vocab.json': json.dumps(tokens), 'bert.small/pretrained.params': blob})


# sizes, the same in every profile: PTB train sentences, WikiText-2 paragraphs, IMDb train / test reviews per class,
# SNLI train / test pairs, GloVe 50d / 100d tokens. d2l.train_ch13 needs at least 5 batches an epoch (it takes
# i % (num_batches // 5)): IMDb's 260 training reviews are 5 batches of 64; SNLI's 2080 training rows, 2060 with a
# label, are 5 batches of 512 for the BERT fine-tuning (4 full ones and 12 examples) and 9 of 256 for attention.
SIZES = dict(ptb=4000, wiki=70, imdb=(130, 32), snli=(2080, 200), glove=(3600, 1200))


def write(base, profile):
    hub = os.path.join(base, 'hub')
    os.makedirs(hub, exist_ok=True)
    ptb(os.path.join(hub, 'ptb.zip'), SIZES['ptb'])
    wikitext2(os.path.join(hub, 'wikitext-2-v1.zip'), SIZES['wiki'])
    aclimdb(os.path.join(hub, 'aclImdb_v1.tar.gz'), *SIZES['imdb'])
    snli(os.path.join(hub, 'snli_1.0.zip'), *SIZES['snli'])
    glove(os.path.join(hub, 'glove.6B.50d.zip'), 'glove.6B.50d', 50, SIZES['glove'][0])
    glove(os.path.join(hub, 'glove.6B.100d.zip'), 'glove.6B.100d', 100, SIZES['glove'][1])
    # the oracle's BERT weights do not depend on the profile: made once, copied to the other profiles
    dest = os.path.join(hub, 'bert.small.zip')
    for other in sorted(os.listdir(os.path.dirname(base))):
        made = os.path.join(os.path.dirname(base), other, 'hub', 'bert.small.zip')
        if other != profile and os.path.isfile(made) and os.path.getmtime(made) > os.path.getmtime(__file__):
            shutil.copyfile(made, dest)
            return
    bert_small(dest)


if __name__ == '__main__':
    write(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'small')
