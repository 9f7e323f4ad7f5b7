#!/usr/bin/env python3
"""Writes a tiny qwen2 GGUF whose weights are set by hand, for agentls's tests against
a real llama.cpp llama-server (scripts/llama-server.sh builds both).

The vocabulary is llama.cpp's own Qwen2 vocabulary (models/ggml-vocab-qwen2.gguf) and the
chat template Qwen2.5-Instruct's (models/templates/), so the server's chat template, its
tool-call grammar and parser and its errors are the real ones. The model itself is a
little program, not a language model, so that what it answers is known:

  - one layer whose only attention head looks for "_response" (a piece of the
    template's <tool_response>, present only once a tool has answered);
  - the output depends on the current token and that flag alone (the rest of the
    network is zero):
      no tool result yet:  "\\n" -> "<" -> "tool" -> "_call" -> ">\\n"  (so it calls a tool:
                           the server's grammar then writes the call's JSON, where the
                           model prefers to close strings and objects at once)
      after a tool result: "\\n" -> " done" -> <|im_end|>

usage: llama-tiny-model.py LLAMA_CPP_SOURCE OUT.gguf
"""
import sys

import numpy as np

src, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, src + "/gguf-py")
import gguf  # noqa: E402  (the gguf package of the llama.cpp source being built)

vocab = gguf.GGUFReader(src + "/models/ggml-vocab-qwen2.gguf")
template = open(src + "/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja").read()


def field(name):
    return vocab.fields[name].contents()


tokens = field("tokenizer.ggml.tokens")
ids = {t: i for i, t in enumerate(tokens)}


def tok(s):
    # BPE token strings write a space as U+0120 and a newline as U+010A.
    t = s.replace(" ", "\u0120").replace("\n", "\u010a")
    if t not in ids:
        sys.exit("llama-tiny-model.py: token %r is not in the vocabulary" % s)
    return ids[t]


NL, LT, TOOL, CALL, GT, DONE, MARK = tok("\n"), tok("<"), tok("tool"), tok("_call"), tok(">\n"), tok(" done"), tok("_response")
CLOSE_GT = tok(">")
QUOTE, EMPTY, CLOSE, QCLOSE = tok('"'), tok('""'), tok("}"), tok('"}')
END = tok("<|im_end|>")

n_vocab = len(tokens)
n_embd, n_head, n_ff, n_ctx = 64, 2, 64, 32768
head_dim = n_embd // n_head

# The residual stream's features (embedding dimensions).
CONST, F_NL, F_LT, F_TOOL, F_CALL, F_GT, F_DONE, F_MARK, F_FLAG = range(9)

emb = np.zeros((n_vocab, n_embd), dtype=np.float32)
emb[:, CONST] = 1.0
for t, f in [(NL, F_NL), (LT, F_LT), (TOOL, F_TOOL), (CALL, F_CALL), (GT, F_GT), (CLOSE_GT, F_GT), (DONE, F_DONE), (MARK, F_MARK)]:
    emb[t, f] = 1.0

# Attention, head 0: the query is a constant (its bias), the key is the marker feature,
# both in the head's last dimension, which the huge RoPE base leaves unrotated; so a
# marker anywhere before takes the whole attention, and its value (the marker feature
# again) sets F_FLAG. The attention's input is RMS-normalised: a marker token's
# feature arrives as sqrt(n_embd / 2).
normed = np.sqrt(n_embd / 2.0)
wq = np.zeros((n_embd, n_embd), dtype=np.float32)
bq = np.zeros(n_embd, dtype=np.float32)
wk = np.zeros((n_embd, n_embd), dtype=np.float32)
wv = np.zeros((n_embd, n_embd), dtype=np.float32)
wo = np.zeros((n_embd, n_embd), dtype=np.float32)
last = head_dim - 1
score = 30.0  # a marker's attention score, against 0 for every other token
bq[last] = score * np.sqrt(head_dim) / normed
wk[last, F_MARK] = 1.0
wv[0, F_MARK] = 1.0
wo[F_FLAG, 0] = 1.0 / normed

# Output logits, by feature (before the final RMS norm, which only sharpens them).
outw = np.zeros((n_vocab, n_embd), dtype=np.float32)
outw[LT, F_NL], outw[LT, F_FLAG] = 10.0, -20.0
outw[TOOL, F_LT] = 10.0
outw[CALL, F_TOOL] = 10.0
outw[GT, F_CALL] = 10.0
outw[END, F_GT], outw[END, F_DONE] = 10.0, 10.0
outw[DONE, F_NL], outw[DONE, F_FLAG], outw[DONE, F_DONE], outw[DONE, CONST] = 10.0, 10.0, -30.0, -10.0
# Inside the grammar's JSON: end strings and objects as soon as allowed.
outw[EMPTY, CONST], outw[QUOTE, CONST], outw[CLOSE, CONST], outw[QCLOSE, CONST] = 7.0, 6.0, 5.0, 5.0

w = gguf.GGUFWriter(out, "qwen2")
w.add_name("agentls tiny qwen2 (hand-set weights, a test fixture)")
w.add_context_length(n_ctx)
w.add_embedding_length(n_embd)
w.add_block_count(1)
w.add_feed_forward_length(n_ff)
w.add_head_count(n_head)
w.add_head_count_kv(n_head)
w.add_rope_freq_base(1e10)
w.add_layer_norm_rms_eps(1e-6)
w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
w.add_tokenizer_model(field("tokenizer.ggml.model"))
w.add_tokenizer_pre(field("tokenizer.ggml.pre"))
w.add_token_list(tokens)
w.add_token_types(field("tokenizer.ggml.token_type"))
w.add_token_merges(field("tokenizer.ggml.merges"))
w.add_bos_token_id(tok("<|endoftext|>"))
w.add_eos_token_id(END)
w.add_pad_token_id(tok("<|endoftext|>"))
w.add_add_bos_token(False)
w.add_chat_template(template)

f16 = np.float16
w.add_tensor("token_embd.weight", emb.astype(f16))
w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
w.add_tensor("output.weight", outw.astype(f16))
w.add_tensor("blk.0.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
w.add_tensor("blk.0.attn_q.weight", wq.astype(f16))
w.add_tensor("blk.0.attn_q.bias", bq)
w.add_tensor("blk.0.attn_k.weight", wk.astype(f16))
w.add_tensor("blk.0.attn_k.bias", np.zeros(n_embd, dtype=np.float32))
w.add_tensor("blk.0.attn_v.weight", wv.astype(f16))
w.add_tensor("blk.0.attn_v.bias", np.zeros(n_embd, dtype=np.float32))
w.add_tensor("blk.0.attn_output.weight", wo.astype(f16))
w.add_tensor("blk.0.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
w.add_tensor("blk.0.ffn_gate.weight", np.zeros((n_ff, n_embd), dtype=f16))
w.add_tensor("blk.0.ffn_up.weight", np.zeros((n_ff, n_embd), dtype=f16))
w.add_tensor("blk.0.ffn_down.weight", np.zeros((n_embd, n_ff), dtype=f16))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
