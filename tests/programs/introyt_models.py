# Corpus program modelled on pytorch/tutorials beginner_source/introyt/modelsyt_tutorial.py
# (commit c53e7d4efc0e39e455c531d21ec7db28ba220214, BSD-3-Clause; see LICENSE-NOTICE.md):
# the same steps and calls, written for this corpus.
import torch

import _corpus


class TinyModel(torch.nn.Module):
    def __init__(self):
        super(TinyModel, self).__init__()
        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


tinymodel = TinyModel()
print('The model:')
print(tinymodel)
print('\n\nJust one layer:')
print(tinymodel.linear2)
print('\n\nModel params:')
for param in tinymodel.parameters():
    print(param.shape)  # tensorgrad-corpus: the shapes (the values are random)
print('\n\nLayer params:')
for param in tinymodel.linear2.parameters():
    print(param.shape)

lin = torch.nn.Linear(3, 2)
_corpus.init_(lin)  # tensorgrad-corpus: the same initial weights under both libraries
x = _corpus.rand(1, 3, seed=1)  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 3)
print('Input:')
print(x)
print('\n\nWeight and Bias parameters:')
for param in lin.parameters():
    print(param)
y = lin(x)
print('\n\nOutput:')
print(y)


class LeNet(torch.nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5)
        self.conv2 = torch.nn.Conv2d(6, 16, 3)
        self.fc1 = torch.nn.Linear(16 * 6 * 6, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.nn.functional.relu(self.conv1(x)), (2, 2))
        x = torch.nn.functional.max_pool2d(torch.nn.functional.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = torch.nn.functional.relu(self.fc1(x))
        x = torch.nn.functional.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


net = _corpus.init_(LeNet())  # tensorgrad-corpus: the same initial weights under both libraries
print(net(_corpus.rand(2, 1, 32, 32, seed=2)))  # tensorgrad-corpus: run the LeNet the tutorial defines


class LSTMTagger(torch.nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super(LSTMTagger, self).__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = torch.nn.Embedding(vocab_size, embedding_dim)
        self.lstm = torch.nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = torch.nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = torch.nn.functional.log_softmax(tag_space, dim=1)
        return tag_scores


tagger = _corpus.init_(LSTMTagger(6, 6, 9, 3))  # tensorgrad-corpus: run the tagger the tutorial defines
print(tagger(torch.tensor([0, 1, 2, 3, 4])))

my_tensor = _corpus.rand(1, 6, 6, seed=3)  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 6, 6)
print(my_tensor)
maxpool_layer = torch.nn.MaxPool2d(3)
print(maxpool_layer(my_tensor))

my_tensor = _corpus.rand(1, 4, 4, seed=4) * 20 + 5  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 4, 4)
print(my_tensor)
print(my_tensor.mean())
norm_layer = torch.nn.BatchNorm1d(4)
normed_tensor = norm_layer(my_tensor)
print(normed_tensor)
print(normed_tensor.mean())

my_tensor = _corpus.rand(1, 4, 4, seed=5)  # tensorgrad-corpus: seeded numpy data for torch.rand(1, 4, 4)
dropout = torch.nn.Dropout(p=0.4)
print(dropout(my_tensor).shape)  # tensorgrad-corpus: dropout's masks differ between the libraries: shapes and the kept values' scale
kept = dropout(my_tensor)
print(bool(((kept == 0) | torch.isclose(kept, my_tensor / 0.6)).all()))

transformer = torch.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                   dim_feedforward=32, dropout=0.0)  # tensorgrad-corpus: small sizes, no dropout
_corpus.init_(transformer)  # tensorgrad-corpus: the same initial weights under both libraries
src = _corpus.rand(5, 2, 16, seed=6)
tgt = _corpus.rand(4, 2, 16, seed=7)
print(transformer(src, tgt))
