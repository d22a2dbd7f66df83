#pragma once
// Z3 over symbolic coordinates: Swing's torus peer function (Sec. 4.1-4.2,
// schedules/swing/swing_torus.hpp) is an involution, and the 2D collectives
// never leave a node on the same port in the steps where Sec. 4.1 claims so.
//
// A torus step of collective c changes one coordinate, x_d of dimension d
// (side n = 2^S), by Eq. 2's rule with offset off = sign(c) * rho(sigma)
// (or delta(sigma) in the text's reading); every other coordinate is kept
// (by construction of the generator, unit-tested). So both statements are
// statements about one symbolic coordinate x in Z_n (an S-bit vector,
// wrap-around = mod n), per (dimension, plan step, collective):
//   involution : y = x + off (x even) or x - off (x odd); then the same rule
//                applied to y gives x back;
//   ports      : for collectives c != c' on dimension d at plan step j below
//                square_phase_steps(), their first hops (direction + iff
//                (y - x) mod n < n/2, - iff > n/2, at n/2 the sign of the
//                algorithm's own offset; properties/swing/swing_torus_ports.hpp)
//                differ for every x.
// A sat answer is replayed on the generator (rank with coordinate x in d,
// 0 elsewhere) before it is reported; one that does not replay is unknown.
#include <cstdint>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/swing/swing_torus.hpp"

namespace collcheck::smt {

Verdict prove_swing_torus_peers(const SwingTorus& t, unsigned timeout_ms);

}  // namespace collcheck::smt
