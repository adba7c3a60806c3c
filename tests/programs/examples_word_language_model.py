# Corpus program modelled on pytorch/examples word_language_model/model.py, data.py and main.py
# (commit 77f55b912142e11fcfdf5b530231fb9c52f181e8, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import _corpus


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


# tensorgrad-corpus: the wikitext-2 files (a download) replaced by a few lines of text in memory
TEXT = """the cat sat on the mat
the dog sat on the log
a cat and a dog met on the mat
the log and the mat were wet
"""


class Corpus(object):
    def __init__(self, text):
        self.dictionary = Dictionary()
        self.train = self.tokenize(text)

    def tokenize(self, text):
        idss = []
        for line in text.splitlines():
            words = line.split() + ['<eos>']
            ids = []
            for word in words:
                ids.append(self.dictionary.add_word(word))
            idss.append(torch.tensor(ids).type(torch.int64))
        return torch.cat(idss)


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


corpus = Corpus(TEXT)
train_data = batchify(corpus.train, 2)
ntokens = len(corpus.dictionary)
bptt, clip, lr = 5, 0.25, 20
criterion = nn.NLLLoss()
print(ntokens, train_data.shape)

for rnn_type in ['LSTM', 'GRU', 'RNN_TANH']:  # tensorgrad-corpus: the three recurrent kinds of --model, one after another
    model = RNNModel(rnn_type, ntokens, 8, 8, 2, dropout=0.0, tie_weights=True)  # tensorgrad-corpus: sizes 8 instead of 200, no dropout (its masks differ)
    _corpus.init_(model)  # tensorgrad-corpus: the same initial weights under both libraries
    for epoch in range(1, 3):  # tensorgrad-corpus: 2 epochs instead of 40
        model.train()
        total_loss = 0.
        hidden = model.init_hidden(2)
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            data, targets = get_batch(train_data, i, bptt)
            model.zero_grad()
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            total_loss += loss.item()
        cur_loss = total_loss / (batch + 1)
        print('| {} | epoch {:3d} | loss {:5.2f} | ppl {:8.2f}'.format(rnn_type, epoch, cur_loss, math.exp(cur_loss)))
    # generate.py: a few words, greedily (tensorgrad-corpus: argmax instead of torch.multinomial, whose stream differs)
    model.eval()
    hidden = model.init_hidden(1)
    input = torch.tensor([[corpus.dictionary.word2idx['the']]])
    words = []
    with torch.no_grad():
        for _ in range(6):
            output, hidden = model(input, hidden)
            word_idx = output.squeeze().argmax()
            input.fill_(word_idx)
            words.append(corpus.dictionary.idx2word[word_idx])
    print(' '.join(words))
