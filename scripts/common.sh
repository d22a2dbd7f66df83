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
  libsimgrid-dev      # SimGrid's SMPI: collcheck-mpi on thousands of simulated ranks (build-smpi, scripts/smpi)
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

# collcheck-mpi and its tests (tests/mpi) built against another MPI, beside
# ./build: only the files that include mpi.h are compiled again, the rest is
# linked from ./build (COLLCHECK_CORE_FROM), which must be built first.
#   build_collcheck_mpich  Debian's MPICH in $BUILD-mpich: MPICH's mpicxx, Hydra's mpiexec
#   build_collcheck_smpi   SimGrid's SMPI in $BUILD-smpi: run with scripts/smpi
build_mpi_only() {
  local dir="$1"
  shift
  local configure=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do configure+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$BUILD" -j "$(nproc)" --target cc_checker  # and every library it links
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOLLCHECK_BUILD_BENCHMARKS=OFF \
    -DCOLLCHECK_TESTS_MPI_ONLY=ON -DCOLLCHECK_CORE_FROM="$BUILD" "${configure[@]}" >/dev/null
  cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
}
MPICH_BUILD="${BUILD}-mpich"
build_collcheck_mpich() {
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  build_mpi_only "$MPICH_BUILD" -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
    -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich -- "$@"
}
SMPI_BUILD="${BUILD}-smpi"
build_collcheck_smpi() {
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  build_mpi_only "$SMPI_BUILD" -DCOLLCHECK_MPI_FLAVOUR=smpi -- "$@"
}

install_missing
