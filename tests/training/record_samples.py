"""Test helper: run a training script's ``main`` while recording, per process, which dataset
indices it loads (``seen-RANK.txt`` in ``$FLOWPATH_RECORD_DIR``), to show each process its own
shard. Usage (from the repository root)::

    accelerate launch ... tests/training/record_samples.py training/train_segmenter.py --config ...
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

DATASETS = {"train_flow2mermaid": "SFTDataset", "train_segmenter": "CocoNodeDataset"}


def main() -> int:
    script = Path(sys.argv[1]).stem
    module = importlib.import_module(f"training.{script}")
    dataset = getattr(module, DATASETS[script])
    record = Path(os.environ["FLOWPATH_RECORD_DIR"]) / f"seen-{os.environ.get('RANK', '0')}.txt"
    load = dataset.__getitem__

    def recording_getitem(self, idx):
        with record.open("a") as f:
            f.write(f"{idx}\n")
        return load(self, idx)

    dataset.__getitem__ = recording_getitem
    return module.main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
