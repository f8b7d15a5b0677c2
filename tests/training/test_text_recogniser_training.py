"""The recogniser's training script: synthetic lines keep the held-out fonts out, and two CPU
steps write a model the engine loads, then resume from the checkpoint (real torch, real fonts)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.markers import REPO_ROOT, require_transformers


def test_training_fonts_hold_out_the_wild_eval_faces():
    from data_gen.styles import WILD_EVAL_FONTS
    from training.text_lines import train_fonts

    fonts = train_fonts()
    families = {f.family for f in fonts}
    assert not families & set(WILD_EVAL_FONTS)
    assert not any(f.family.startswith("DejaVu Sans") and "Mono" not in f.family for f in fonts)
    assert len(families) >= 3  # Liberation alone gives Sans, Serif, Mono


def test_synthetic_lines_are_cleaned_single_lines_with_their_text():
    from training.text_lines import LineSynth

    synth = LineSynth(3, words=["alpha", "beta"])
    for _ in range(5):
        line, text, font = synth.sample()
        assert line.ndim == 2 and line.dtype.name == "uint8" and text.strip() == text and text
        assert (line < 128).any() and (line > 200).any()  # dark ink on white, as node crops are


def test_the_wild_look_draws_small_serif_or_narrow_print_and_leaves_the_first_stream_alone():
    from training.text_lines import LineSynth, is_serif_or_narrow

    assert is_serif_or_narrow("Liberation Serif") and is_serif_or_narrow("TeX Gyre Heros Cn")
    assert is_serif_or_narrow("Liberation Sans Narrow") and not is_serif_or_narrow("Liberation Sans")
    wild = LineSynth(5, words=["alpha", "beta"], wild_share=1.0, wild_sizes=(7.0, 9.0))
    fonts = [wild.sample()[2] for _ in range(12)]
    assert sum(is_serif_or_narrow(f.family) for f in fonts) >= 6  # 70 % drawn from those faces
    # without the wild look the stream is the earlier runs' one: the same seed, the same lines
    a, b = LineSynth(7, words=["alpha", "beta"]), LineSynth(7, words=["alpha", "beta"], wild_share=0.0)
    for _ in range(3):
        (la, ta, fa), (lb, tb, fb) = a.sample(), b.sample()
        assert ta == tb and fa == fb and np.array_equal(la, lb)


def test_the_blurred_look_always_blurs_and_gives_cleaned_single_lines():
    import random

    from training.text_lines import LineSynth, web_degrade

    # blur is always on: a 1-px dark rule is spread over its neighbours, so its darkest pixel per
    # column is grey (without blur: the median over these seeds is under 10, rotation aside)
    rule = np.full((24, 60, 3), 255, np.uint8)
    rule[12, 5:55] = 0
    darkest = [web_degrade(random.Random(seed), rule, 11.0, (255, 255, 255))[..., 0][:, 20:40].min(axis=0).mean()
               for seed in range(12)]
    assert float(np.median(darkest)) > 60
    synth = LineSynth(4, words=["alpha", "beta"], blur_share=1.0, blur_sizes=(9.0, 10.0))
    for _ in range(4):
        line, text, _ = synth.sample()
        assert line.ndim == 2 and text and (line < 128).any() and (line > 200).any()
    # a wild-only stream is the ninth stretch's: the blurred look adds no draw when it is off
    a = LineSynth(8, words=["alpha", "beta"], wild_share=0.5)
    b = LineSynth(8, words=["alpha", "beta"], wild_share=0.5, blur_share=0.0)
    for _ in range(3):
        (la, ta, _), (lb, tb, _) = a.sample(), b.sample()
        assert ta == tb and np.array_equal(la, lb)
    with pytest.raises(ValueError, match="blur_share"):
        LineSynth(1, wild_share=0.7, blur_share=0.5)


@require_transformers
def test_two_training_steps_write_a_loadable_model_and_resume(tmp_path, capsys):
    from training.train_text_recogniser import main

    out = tmp_path / "run"
    args = ["--config", str(REPO_ROOT / "configs" / "text_recogniser_cpu.yaml"), "--output_dir", str(out),
            "--max_steps", "2", "--per_device_train_batch_size", "2", "--val_lines", "4",
            "--logging_steps", "1", "--eval_steps", "2", "--save_steps", "1", "--channels", "4", "4", "8", "8",
            "8", "8", "--hidden", "8", "--layers", "1"]
    assert main(args) == 0
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2] and "val_cer" in log[-1] and log[0]["loss"] > 0
    record = json.loads((out / "train_record.json").read_text())
    assert "Caladea" not in record["font_families"] and 0 <= record["val_cer"]
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine

    engine = LineRecogniserEngine(out)
    assert engine.config.hidden == 8
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    # resuming a finished run trains no further step and leaves the model as it was
    before = (out / "model.safetensors").read_bytes()
    assert main([*args, "--resume", "true"]) == 0
    assert (out / "model.safetensors").read_bytes() == before
    # a new run into the finished run's folder is refused rather than mixed into its checkpoints
    capsys.readouterr()
    assert main(args) == 2
    assert "not empty" in capsys.readouterr().err
    assert (out / "model.safetensors").read_bytes() == before
    # resuming where there is nothing to resume is an error, not a silent fresh start
    assert main([*args[:3], str(tmp_path / "empty"), *args[4:], "--resume", "true"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
    # a fine-tune starts from another run's weights (a tiny learning rate keeps them close to those)
    from safetensors.torch import load_file

    tuned = tmp_path / "tuned"
    assert main([*args[:3], str(tuned), *args[4:], "--init_from", str(out / "checkpoint-1"),
                 "--max_steps", "1", "--learning_rate", "1e-9"]) == 0
    start, after = load_file(str(out / "checkpoint-1" / "model.safetensors")), load_file(str(tuned / "model.safetensors"))
    assert all(np.allclose(start[k].numpy(), after[k].numpy(), atol=1e-5) for k in start if "weight" in k)
    assert json.loads((tuned / "train_record.json").read_text())["init_from"] == str(out / "checkpoint-1")
    # with wild lines in the mix the starting point and every evaluation also measure them
    wild = tmp_path / "wild"
    assert main([*args[:3], str(wild), *args[4:], "--init_from", str(out / "checkpoint-1"),
                 "--max_steps", "2", "--wild_share", "0.5", "--blur_share", "0.25"]) == 0
    wild_log = [json.loads(line) for line in (wild / "train_log.jsonl").read_text().splitlines()]
    assert wild_log[0]["step"] == 0 and "val_cer_wild" in wild_log[0] and "val_cer_wild" in wild_log[-1]
    assert "val_cer_blur" in wild_log[0] and "val_cer_blur" in wild_log[-1]
    assert json.loads((wild / "train_record.json").read_text())["blur_share"] == 0.25
    assert main([*args[:3], str(tmp_path / "t3"), *args[4:], "--wild_share", "0.8", "--blur_share", "0.4"]) == 2
    assert "blur_share" in capsys.readouterr().err
    assert main([*args[:3], str(tmp_path / "t2"), *args[4:], "--init_from", str(tmp_path / "nowhere")]) == 2
    assert "init_from" in capsys.readouterr().err


def test_a_bad_config_is_refused_before_training(tmp_path, capsys):
    pytest.importorskip("transformers", reason="needs transformers (flowpath[models])")
    from training.train_text_recogniser import main

    assert main(["--output_dir", str(tmp_path), "--max_steps", "0"]) == 2
    assert "max_steps" in capsys.readouterr().err


def test_grey_lines_are_the_same_drawings_uncleaned():
    from training.text_lines import LineSynth

    grey = LineSynth(6, words=["alpha", "beta"], blur_share=1.0, blur_sizes=(9.0, 10.0), grey=True)
    for _ in range(4):
        line, text, _ = grey.sample()
        assert line.ndim == 2 and text and (line < 128).any() and (line > 200).any()  # dark on light
        # the blur's ramps are kept: a good share of the ink is mid-grey, not saturated
        inked = line < 200
        assert ((line > 60) & (line < 200)).sum() > 0.2 * inked.sum()


@require_transformers
def test_a_grey_run_writes_a_model_that_says_it_reads_grey_lines(tmp_path):
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine
    from training.train_text_recogniser import main

    out = tmp_path / "grey"
    args = ["--config", str(REPO_ROOT / "configs" / "text_recogniser_grey_ft.yaml"), "--output_dir", str(out),
            "--init_from", "none", "--max_steps", "2", "--per_device_train_batch_size", "2", "--val_lines", "3",
            "--logging_steps", "1", "--eval_steps", "2", "--save_steps", "2", "--channels", "4", "4", "8", "8",
            "8", "8", "--hidden", "8", "--layers", "1"]
    assert main(args) == 0
    assert json.loads((out / "config.json").read_text())["grey_input"] is True
    assert json.loads((out / "train_record.json").read_text())["grey_input"] is True
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert "val_cer_blur" in log[-1] and "val_cer_wild" in log[-1]
    engine = LineRecogniserEngine(out / "checkpoint-2")
    assert engine.name == "greyrec" and engine.config.grey_input
    # the cleaned-input models keep their name and config (no grey_input key: False)
    assert not json.loads((REPO_ROOT / "flowpath" / "resources" / "text_recogniser" / "config.json")
                          .read_text()).get("grey_input", False)
