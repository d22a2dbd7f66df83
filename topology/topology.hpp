#pragma once
// The network a schedule runs on, as a layer of its own: nodes,
// directed links, and the route a message takes. Link-level costs
// (topology/link_load.hpp) are measured on these routes from a schedule's
// own transfers, never from a formula.
//
// torus AxBx..  : a D-dimensional torus, node numbering row-major as
//                 MPI_Cart_create (schedules/torus_shape.hpp). Each node has
//                 2D ports (dimension, direction); a side of 2 still has two
//                 links to its one neighbour (the + and the wrap-around), a
//                 side of 1 none. Routing: minimal and dimension-ordered —
//                 the dimensions a message must change are corrected in
//                 increasing dimension order, each along the shorter way
//                 round; at distance exactly d/2 (two minimal ways) by the
//                 sign of the tie the schedule gives for the transfer
//                 (Schedule::route_tie: Swing's signed offset), + if it gives
//                 none (Swing NSDI'24 Sec. 2.3.2 footnote 1: the paper counts
//                 one way; splitting the packets would halve that link's load).
// hyperx AxBx.. : a D-dimensional HyperX (Swing NSDI'24 Sec. 6): every node
//                 linked to every node of its row in each dimension, so a
//                 message changing one coordinate takes one hop; several are
//                 corrected in increasing dimension order, one hop each.
// HammingMesh (Sec. 6) is not modelled: its boards' fat trees need a
//                 switch model the other two do not.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/torus_shape.hpp"  // dims_label

namespace collcheck {

class Topology {
 public:
  virtual ~Topology() = default;
  virtual std::string name() const = 0;  // e.g. "torus 4x4"
  uint64_t nodes() const { return nodes_; }
  const std::vector<uint32_t>& dims() const { return dims_; }
  // Directed links are numbered 0..links()-1.
  virtual uint64_t links() const = 0;
  virtual std::string link_name(uint64_t id) const = 0;
  // Appends the links a message from a to b crosses, in order (none if a == b).
  virtual void route(Rank a, Rank b, int64_t tie, std::vector<uint64_t>& out) const = 0;

 protected:
  Topology(std::vector<uint32_t> dims);
  std::vector<uint32_t> dims_;
  std::vector<uint64_t> stride_;
  uint64_t nodes_ = 1;
  uint32_t coord(Rank r, size_t d) const { return static_cast<uint32_t>((r / stride_[d]) % dims_[d]); }
};

class TorusTopology final : public Topology {
 public:
  explicit TorusTopology(std::vector<uint32_t> dims) : Topology(std::move(dims)) {}
  std::string name() const override;
  uint64_t links() const override { return nodes_ * dims_.size() * 2; }
  std::string link_name(uint64_t id) const override;
  void route(Rank a, Rank b, int64_t tie, std::vector<uint64_t>& out) const override;
  // The link leaving `node` along dimension d in direction dir (+1 / -1).
  uint64_t link(Rank node, size_t d, int dir) const { return (node * dims_.size() + d) * 2 + (dir > 0); }
  // The same route as straight runs, one per dimension it changes: `hops`
  // links along dimension d in direction dir from `from` (route() lists
  // them link by link). A run's cost does not grow with its length, which
  // keeps link loads on long sides linear (topology/link_load.cpp).
  struct Run {
    Rank from;
    size_t d;
    int dir;
    uint64_t hops;
  };
  void runs(Rank a, Rank b, int64_t tie, std::vector<Run>& out) const;
  uint64_t stride(size_t d) const { return stride_[d]; }
  uint32_t coordinate(Rank r, size_t d) const { return coord(r, d); }
};

class HyperXTopology final : public Topology {
 public:
  explicit HyperXTopology(std::vector<uint32_t> dims);
  std::string name() const override;
  uint64_t links() const override { return nodes_ * dims_.size() * max_side_; }
  std::string link_name(uint64_t id) const override;
  void route(Rank a, Rank b, int64_t tie, std::vector<uint64_t>& out) const override;

 private:
  uint64_t max_side_ = 1;
};

// The topologies by name, for --topology.
const std::vector<std::string>& topology_names();  // "torus", "hyperx"
// Throws InputError (one line) for an unknown name or a bad shape.
std::unique_ptr<Topology> make_topology(const std::string& name, const std::vector<uint32_t>& dims);

}  // namespace collcheck
