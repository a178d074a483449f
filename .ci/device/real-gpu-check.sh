#!/bin/bash
# Real-GPU check of detection and the prefix environment, for a machine with an NVIDIA GPU and
# a CUDA torch somewhere (run as root: it hides driver libraries with bind mounts in a private
# mount namespace). Not part of CI. Usage:
#   real-gpu-check.sh AITK_ENV_BINARY EMPTY_LOCK TORCH_SITE_PACKAGES OUT_DIR
# EMPTY_LOCK: a lockfile with a linux-x86_64-cu130 target and no packages (its variables are
# what the shim must set). Prints each probe's answer with NVML, libcuda and nvidia-smi hidden
# in turn, then runs the real torch through `aitk-env run`, bin/aitk-run and bin/activate.
set -u
A=$1 LOCK=$2 TORCH_SITE=$3 OUT=$4
mkdir -p "$OUT"
export AITK_ENV_CACHE_DIR=$OUT/cache
hide() { for f in "$@"; do [ -e "$f" ] && mount --bind /dev/null "$f"; done; }
probe() {
    "$A" doctor --refresh --json >"$OUT/$1.json"
    echo "$1: rc=$?"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('  ', d['backend'], d['nvidia'], d['gpus'])" "$OUT/$1.json"
}
if [ "${5:-}" = inner ]; then
    probe all
    hide /usr/local/nvidia/lib64/libnvidia-ml.so* /lib/libnvidia-ml.so* /usr/lib/x86_64-linux-gnu/libnvidia-ml.so*
    probe no-nvml
    hide /usr/local/nvidia/lib64/libcuda.so* /lib/libcuda.so* /usr/lib/x86_64-linux-gnu/libcuda.so*
    probe no-nvml-no-libcuda
    hide $(which -a nvidia-smi)
    probe sysfs-procfs-only
    exit 0
fi
unshare -m "$0" "$@" inner
P=$OUT/prefix
"$A" setup -l "$LOCK" -p "$P" --python "$(command -v python3.12 || command -v python3)" || exit 1
site=$(echo "$P"/lib/python3*/site-packages)
echo "$TORCH_SITE" >"$site/zz_torch_under_test.pth"
prog='import os,torch; x=torch.empty(1<<28, device="cuda"); print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name(0), os.environ.get("PYTORCH_CUDA_ALLOC_CONF"), os.environ.get("LD_LIBRARY_PATH"), os.environ.get("PYTHONPATH"))'
LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}:/usr/local/nvidia/lib64 PYTHONPATH=/nowhere \
    "$A" run -p "$P" -- python -c "$prog"; echo "run: rc=$?"
"$P/bin/aitk-run" python -c "$prog"; echo "aitk-run: rc=$?"
bash -c ". '$P/bin/activate' && python -c '$prog'"; echo "activate: rc=$?"
