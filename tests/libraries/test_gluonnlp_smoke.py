"""GluonNLP 0.10 on mxcompat: vocabulary, batchify, a language model and an attention cell."""
from ._run import needs, run_script


def test_gluonnlp_vocab_lm_and_attention(tmp_path):
    needs('gluonnlp')
    out = run_script(tmp_path, '''
        import mxnet as mx
        import gluonnlp as nlp
        counter = nlp.data.count_tokens('the cat sat on the mat the end'.split())
        vocab = nlp.Vocab(counter)
        print('vocab', len(vocab), vocab['the'], vocab.to_tokens([vocab['cat']]))
        pad = nlp.data.batchify.Pad(pad_val=0)([mx.nd.array([1, 2, 3]), mx.nd.array([4])])
        print('pad', pad.asnumpy().tolist())
        lm = nlp.model.StandardRNN('lstm', len(vocab), 8, 8, 1, dropout=0.0, tie_weights=False)
        lm.initialize()
        hidden = lm.begin_state(batch_size=2)
        out, hidden = lm(mx.nd.array([[1, 2], [3, 4], [5, 6]]), hidden)
        print('lm', out.shape, len(hidden), hidden[0].shape)
        cell = nlp.model.DotProductAttentionCell(scaled=True)
        cell.initialize()
        q, k = mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 5, 4))
        ctx, att = cell(q, k)
        print('attention', ctx.shape, round(float(att.sum().asscalar()), 4))
    ''')
    assert 'vocab 10 4' in out and "['cat']" in out  # 4 special tokens first, then by frequency
    assert 'pad [[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]]' in out
    assert 'lm (3, 2, 10) 2 (1, 2, 8)' in out
    assert 'attention (2, 3, 4) 6.0' in out
