"""Stock Hugging Face ``transformers`` models at tiny configs, random weights, no downloads.

The model code is the library's own (GPT2LMHeadModel, LlamaForCausalLM, ...); only the
configs are small: 2 layers, hidden 64, sequence 16, batch 2. ``build(name)`` gives the
model in eval mode and its inputs (a tuple of tensors); ``output(result)`` the tensor to
compare (logits or the last hidden state). test_model_zoo.py checks each against eager
PyTorch; a benchmark can import this module the same way.
"""

from __future__ import annotations

import torch

BATCH, SEQ, HIDDEN, LAYERS, HEADS, VOCAB = 2, 16, 64, 2, 4, 128


def _ids(vocab=VOCAB):
    return torch.randint(0, vocab, (BATCH, SEQ))


def _mask():
    """An attention mask with padding at the end of the second row (a real mask, not all
    ones, so the models' mask arithmetic runs)."""
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[1, SEQ - 4:] = 0
    return mask


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=HIDDEN, n_layer=LAYERS,
                        n_head=HEADS, bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1)
    return GPT2LMHeadModel(config), (_ids(),)


def llama():
    """GQA (2 key/value heads for 4 query heads), RoPE, RMSNorm, SiLU."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=128,
                         num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                         num_key_value_heads=2, max_position_embeddings=64)
    return LlamaForCausalLM(config), (_ids(),)


def mistral():
    """GQA and a sliding window shorter than the sequence."""
    from transformers import MistralConfig, MistralForCausalLM

    config = MistralConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=128,
                           num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                           num_key_value_heads=2, max_position_embeddings=64,
                           sliding_window=8)
    return MistralForCausalLM(config), (_ids(),)


def qwen2():
    """GQA, and biases on q/k/v."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=128,
                         num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                         num_key_value_heads=2, max_position_embeddings=64)
    return Qwen2ForCausalLM(config), (_ids(),)


def bert():
    """Token types and a padding mask."""
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                        num_attention_heads=HEADS, intermediate_size=128,
                        max_position_embeddings=64)
    types = torch.zeros(BATCH, SEQ, dtype=torch.int64)
    types[:, SEQ // 2:] = 1
    return BertModel(config, add_pooling_layer=False), (_ids(), _mask(), types)


def distilbert():
    from transformers import DistilBertConfig, DistilBertModel

    config = DistilBertConfig(vocab_size=VOCAB, dim=HIDDEN, n_layers=LAYERS, n_heads=HEADS,
                              hidden_dim=128, max_position_embeddings=64)
    return DistilBertModel(config), (_ids(), _mask())


def t5_encoder():
    """Relative position bias (bucketed: log, min, where on integer positions)."""
    from transformers import T5Config, T5EncoderModel

    config = T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=128,
                      num_layers=LAYERS, num_heads=HEADS, relative_attention_num_buckets=8)
    return T5EncoderModel(config), (_ids(), _mask())


def vit():
    """Patch embedding (a strided conv), a class token, learned positions."""
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=HIDDEN,
                       num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                       intermediate_size=128)
    return ViTModel(config, add_pooling_layer=False), (torch.randn(BATCH, 3, 32, 32),)


def whisper_encoder():
    """Two 1-D convolutions (the second strided) with GELU, sinusoidal positions."""
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    config = WhisperConfig(vocab_size=VOCAB, num_mel_bins=16, d_model=HIDDEN,
                           encoder_layers=LAYERS, encoder_attention_heads=HEADS,
                           encoder_ffn_dim=128, decoder_layers=LAYERS,
                           decoder_attention_heads=HEADS, decoder_ffn_dim=128,
                           max_source_positions=SEQ, pad_token_id=VOCAB - 1,
                           bos_token_id=VOCAB - 1, eos_token_id=VOCAB - 1,
                           decoder_start_token_id=VOCAB - 2)
    # the mel frames: twice the positions (the second conv has stride 2)
    return WhisperEncoder(config), (torch.randn(BATCH, 16, 2 * SEQ),)


# name -> builder: () -> (model, inputs)
MODELS = {
    "gpt2": gpt2, "llama": llama, "mistral": mistral, "qwen2": qwen2, "bert": bert,
    "distilbert": distilbert, "t5_encoder": t5_encoder, "vit": vit,
    "whisper_encoder": whisper_encoder,
}


def build(name, seed=0):
    """``(model in eval mode, inputs)`` for a model of MODELS, seeded."""
    torch.manual_seed(seed)
    model, inputs = MODELS[name]()
    return model.eval(), inputs


def output(result):
    """The tensor a model's result is compared by: its logits, else its last hidden state."""
    for key in ("logits", "last_hidden_state"):
        value = getattr(result, key, None)
        if value is not None:
            return value
    return result[0] if isinstance(result, (tuple, list)) else result
