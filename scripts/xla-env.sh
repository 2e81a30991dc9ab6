#!/usr/bin/env bash
# Sets up the environment for `lmask-train --backend xla:...` on a machine where JAX's CUDA plugin is installed
# with pip (jax[cuda13] or jax[cuda12]): finds the PJRT plugin file and puts the NVIDIA libraries that pip installed
# on LD_LIBRARY_PATH. Source it, then pass $LMASK_XLA_BACKEND to a binary built with `go build -tags xla`:
#   source scripts/xla-env.sh && bin/lmask-train --backend "$LMASK_XLA_BACKEND" ...
# PYTHON names the interpreter whose site-packages to search (default python3).
py=${PYTHON:-python3}
sp=$("$py" -c 'import site; print("\n".join(site.getsitepackages()))' 2>/dev/null) || sp=""
plugin=""
for d in $sp; do
  for f in "$d"/jax_plugins/xla_cuda13/*.so "$d"/jax_plugins/xla_cuda12/*.so; do
    if [ -f "$f" ]; then plugin=$f; break 2; fi
  done
done
if [ -z "$plugin" ]; then
  echo "xla-env: no JAX CUDA plugin (jax_plugins/xla_cuda13 or xla_cuda12) in the site-packages of $py" >&2
  return 1 2>/dev/null || exit 1
fi
libs=""
for d in $sp; do
  for l in "$d"/nvidia/*/lib "$d"/nvidia/*/*/lib; do
    [ -d "$l" ] && libs="$libs${libs:+:}$l"
  done
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -d /usr/local/cuda ]; then export XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_cuda_data_dir=/usr/local/cuda"; fi
export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}
export GOPJRT_CUDA_CHECKS=${GOPJRT_CUDA_CHECKS:-0} # as in the measured H100/H200 runs
export LMASK_XLA_BACKEND="xla:$plugin"
echo "xla-env: backend $LMASK_XLA_BACKEND" >&2
