// The parameter axes of each tile-based GEMM family (the values its space spans) and the
// look-ups over them. The constraints and the resource model are constexpr in kernel_space.hpp.
#include "kernels/kernel_space.hpp"

#include <stdexcept>

namespace occtune::kernels {
namespace {

std::vector<FamilySpace> build_spaces() {
  const std::vector<int> block{16, 32, 64, 128, 256};
  const std::vector<int> warp{8, 16, 32, 64, 128, 256};
  const std::vector<int> thread{1, 2, 4, 8, 16};
  return {
      {"coarsened",
       TileFamily::kCoarsened,
       {{"bm", {32, 64, 128, 256}},
        {"bn", {32, 64, 128}},
        {"bk", {4, 8, 16, 32}},
        {"tm", {2, 4, 8, 16}}}},
      {"regblocked",
       TileFamily::kRegBlocked,
       {{"bm", block},
        {"bn", block},
        {"bk", {8, 16, 32}},
        {"tm", thread},
        {"tn", thread},
        {"wm", warp},
        {"wn", warp},
        {"order", {0, 1}},
        {"fbuf", {1, 2}},
        {"ldk", {0, 1, 2, 4}}}},
      {"pipelined",
       TileFamily::kPipelined,
       {{"bm", block},
        {"bn", block},
        {"bk", {8, 16, 32}},
        {"tm", thread},
        {"tn", thread},
        {"wm", warp},
        {"wn", warp},
        {"stages", {2, 3, 4, 5, 6}},
        {"areg", {0, 1}},
        {"order", {0, 1}},
        {"fbuf", {1, 2}, 1}}},
      {"splitk",
       TileFamily::kSplitK,
       {{"bm", {32, 64, 128, 256}},  // 256: the 256x128 long-K tile (kernels/splitk.cuh)
        {"bn", {32, 64, 128}},
        {"bk", {8, 16, 32}},
        {"tm", {2, 4, 8, 16}},
        {"tn", {2, 4, 8}},
        {"wm", {16, 32, 64, 128}},
        {"wn", {16, 32, 64, 128}},
        {"stages", {2, 3, 4}},
        {"areg", {0, 1}},
        {"splits", {2, 4, 8, 16, 32, 64, 128}},
        {"order", {0, 1}},
        {"fbuf", {1, 2}, 1}}},
  };
}

// Defaults for the members a family has no axis for (see TileParams).
TileParams defaults_for(TileFamily kind, const TileParams& p) {
  TileParams out = p;
  if (kind == TileFamily::kCoarsened) {
    out.tn = 1;
    out.wm = p.bm;
    out.wn = p.bn;
    out.stages = 1;
  }
  if (kind == TileFamily::kRegBlocked) out.stages = 2;
  if (kind == TileFamily::kCoarsened || kind == TileFamily::kRegBlocked) out.areg = 0;
  if (kind != TileFamily::kSplitK) out.splits = 1;
  return out;
}

int* member(TileParams& p, std::string_view name) {
  if (name == "bm") return &p.bm;
  if (name == "bn") return &p.bn;
  if (name == "bk") return &p.bk;
  if (name == "tm") return &p.tm;
  if (name == "tn") return &p.tn;
  if (name == "wm") return &p.wm;
  if (name == "wn") return &p.wn;
  if (name == "stages") return &p.stages;
  if (name == "splits") return &p.splits;
  if (name == "areg") return &p.areg;
  if (name == "order") return &p.order;
  if (name == "fbuf") return &p.fbuf;
  if (name == "ldk") return &p.ldk;
  return nullptr;
}

}  // namespace

int tile_param(const TileParams& p, std::string_view name) {
  TileParams copy = p;
  const int* m = member(copy, name);
  return m ? *m : -1;
}

std::string FamilySpace::violation(const TileParams& p) const {
  const char* why = tile_violation(kind, p);
  return why ? why : "";
}

std::vector<TileParams> FamilySpace::enumerate() const {
  std::vector<TileParams> out{defaults_for(kind, TileParams{})};
  for (auto& axis : axes) {
    std::vector<TileParams> next;
    next.reserve(out.size() * axis.values.size());
    for (auto& base : out)
      for (int v : axis.values) {
        TileParams p = base;
        *member(p, axis.name) = v;
        next.push_back(defaults_for(kind, p));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<std::pair<std::string, int>> FamilySpace::named_params(const TileParams& p) const {
  std::vector<std::pair<std::string, int>> out;
  for (auto& axis : axes) {
    const int value = tile_param(p, axis.name);
    if (value != axis.unlabelled) out.emplace_back(axis.name, value);
  }
  return out;
}

TileParams FamilySpace::from_named(const std::vector<std::pair<std::string, int>>& named) const {
  TileParams p = defaults_for(kind, TileParams{});
  for (auto& [name, value] : named) {
    int* m = member(p, name);
    if (!m) throw std::invalid_argument("no tile parameter named '" + name + "'");
    *m = value;
  }
  return defaults_for(kind, p);
}

const std::vector<FamilySpace>& tile_family_spaces() {
  static const std::vector<FamilySpace> spaces = build_spaces();
  return spaces;
}

const FamilySpace* find_tile_family_space(std::string_view family) {
  for (auto& s : tile_family_spaces())
    if (s.family == family) return &s;
  return nullptr;
}

}  // namespace occtune::kernels
