# Shared by scripts/sweep and scripts/test: install missing Debian packages,
# then configure collcheck in ./build (Release, Ninja). The caller builds what
# it needs: build_collcheck [TARGET...] (no target: everything).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${COLLCHECK_BUILD_DIR:-$ROOT/build}"

PACKAGES=(cmake ninja-build g++ pkg-config
  libtbb-dev libboost-program-options-dev libz3-dev nlohmann-json3-dev
  robin-map-dev  # tsl::robin_map, header-only: the all-to-all enumeration's held cells
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev  # the second MPI library: collcheck-mpi is built against it too (build-mpich); Open MPI stays the default
  libpugixml-dev chromium zlib1g-dev
  libsqlite3-dev
  python3-jsonschema  # tests/regression/checker/cli/check_file_test.cpp: docs/schedule.schema.json (Draft 2020-12)
  dpkg-dev)          # scripts/package: CPack's dependency list comes from dpkg-shlibdeps

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "collcheck: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build_collcheck() {
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}"
}

# collcheck-mpi and its tests (tests/mpi) built against Debian's MPICH in
# $BUILD-mpich: the same sources, MPICH's mpicxx and Hydra's mpiexec.
MPICH_BUILD="${BUILD}-mpich"
build_collcheck_mpich() {
  cmake -S "$ROOT" -B "$MPICH_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOLLCHECK_BUILD_BENCHMARKS=OFF \
    -DCOLLCHECK_TESTS_MPI_ONLY=ON -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
    -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$MPICH_BUILD" -j "$(nproc)" "${targets[@]}"
}

install_missing
