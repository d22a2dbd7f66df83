#pragma once
// Standard output under an MPI launcher. Open MPI's mpirun gives each rank a
// pipe or terminal for standard output and copies what arrives to its own;
// a write mpirun cannot make there (`mpirun ... >/dev/full`, a closed pipe)
// is dropped, and mpirun still exits 0: the rank's own checked writes
// (file_io.hpp: flush_stdout) succeed, the report is lost. Rank 0 therefore
// writes its standard output straight to mpirun's when it can:
//
//   - launched by Open MPI's runtime (ORTE: OMPI_MCA_orte_hnp_uri) with
//     mpirun itself as the local daemon and this process's parent (rank 0 on
//     the node where mpirun runs, started by it directly, no shell between
//     them that could have redirected the output itself);
//   - mpirun neither redirects nor decorates the output (--output-filename,
//     --tag-output, --timestamp-output, --xml);
//   - mpirun's standard output is not a regular file: a device (/dev/full,
//     /dev/null, a terminal) or a pipe with a reader. A regular file is left
//     to mpirun: reopening it would not share mpirun's file offset, and
//     what mpirun writes there (the ranks' standard error with 2>&1) would
//     overwrite the report, so a full disk under mpirun goes unnoticed.
//
// Otherwise (another launcher or MPI, rank 0 on another node, a shell in
// between) standard output stays the launcher's to forward, as before.
namespace collcheck {

// Called once by rank 0 before it prints anything: makes file descriptor 1
// mpirun's standard output where the conditions above hold; true if it did.
bool write_stdout_past_launcher();

// Whether this process was started by an MPI launcher (Open MPI's mpirun,
// MPICH's Hydra, a PMIx launcher): its environment says so. Under one,
// standard output is the launcher's to forward (a terminal it opened may end
// in a file, --output-filename), so nothing decides by isatty (the text
// report's colour).
bool under_mpi_launcher();

}  // namespace collcheck
