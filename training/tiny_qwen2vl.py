"""A random-init Qwen2-VL small enough for CPU: the model of the Flow2Mermaid CPU recipe
(``base_model: tiny`` in ``configs/flow2mermaid_cpu.yaml``) and of the tests.

Nothing is downloaded: the tokenizer is a byte-level BPE trained on the run's own Mermaid text,
with Qwen2-VL's special tokens and chat layout.
"""

from __future__ import annotations

from typing import Any

from flowpath.transcribe.qwen2vl import CHAT_TEMPLATE, FLOW2MERMAID_PROMPT

#: Qwen2-VL's special tokens (text end, chat turns, image placeholders)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>",
                  "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]


def train_tiny_tokenizer(texts: list[str], vocab_size: int = 400) -> Any:
    """A small byte-level BPE tokenizer trained offline on Mermaid text, with Qwen2-VL's special
    tokens and chat template (for tests and the CPU recipe; no download)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts + [FLOW2MERMAID_PROMPT], trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   bos_token=None, unk_token=None)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def tiny_qwen2vl(tokenizer: Any, *, hidden_size: int = 32, layers: int = 2, vision_depth: int = 2,
                 seed: int = 0) -> Any:
    """A random-init ``Qwen2VLForConditionalGeneration`` small enough for CPU tests.

    The special token ids (image, video, vision start/end, eos, pad) are taken from ``tokenizer``;
    a config's defaults point into Qwen's real 151k vocabulary and would index out of range.
    """
    import torch
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    heads = 4
    half = hidden_size // heads // 2
    text = dict(vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=2,
                max_position_embeddings=4096,
                # M-RoPE splits each head's rotary half-dimension over (time, height, width)
                rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                                 "mrope_section": [half - 2 * (half // 4), half // 4, half // 4]},
                bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"],
                pad_token_id=ids["<|endoftext|>"])
    vision = dict(depth=vision_depth, embed_dim=hidden_size, hidden_size=hidden_size, num_heads=heads,
                  mlp_ratio=2, patch_size=14, spatial_merge_size=2, temporal_patch_size=2)
    cfg = Qwen2VLConfig(text_config=text, vision_config=vision,
                        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                        vision_start_token_id=ids["<|vision_start|>"],
                        vision_end_token_id=ids["<|vision_end|>"])
    torch.manual_seed(seed)
    model = Qwen2VLForConditionalGeneration(cfg)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    return model
