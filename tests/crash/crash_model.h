// The crash harness's shared vocabulary: the key space the child writes, the exact content of
// every (key, generation), and the one-line protocol by which the child reports its writes.
//
// The child (crash_child.cc) announces each operation before it starts ("I"/"B"/"C"/"D"/"W" lines)
// and acknowledges it after the store returned ("A"/"X" lines). The driver (crash_test.cc) kills
// the child at a random acknowledgement, replays the lines into its model, and checks the
// reopened store against it: every acknowledged write present with its exact value and ETag, the
// one unacknowledged operation in flight either wholly applied or wholly absent.
//
// A bulk write is a run of operations, one per group, announced together: the driver's model
// takes its groups one after another, each acknowledged on its own, so a kill lands between two
// groups or in one; the group in flight must then be whole or absent and the groups after it
// absent.
//
// Besides its one main table the child creates and drops side tables (a pool of names, each
// present or absent at any time) and writes into them, so a kill also lands in a table's creation
// or drop: after it, every acknowledged create must be there and usable, every acknowledged drop
// gone, and the table in flight wholly there (created: empty; dropped: every entity) or wholly
// absent.
//
// Lines (space-separated, ASCII, '\n'-terminated, each written with one write(2)):
//   OPEN                               about to call Store::Open
//   READY <entities> <side tables> <side entities>
//                                      store open, every table scanned
//   I <op> <pk> <rk> <gen>             single write: ins rep mrg del ior iom stale
//   B <op> <pk> <group> <gen> <fail>   batch on a whole group: ins ior rep del; <fail> >= 0 marks a
//                                      batch built to fail at that index (nothing may change)
//   C <table> <partitions>             creates side table <table> (absent until now)
//   D <table>                          drops side table <table> (present until now)
//   W <table> <pk> <rk> <gen>          InsertOrReplace of Content(pk, rk, gen) into side table
//                                      <table>
//   K <op> <gen> <group> <pk>/<rk>...  bulk write (partkv/bulk_writer.h) of Content(pk, rk, gen)
//                                      to every key listed: op ins or ior; the keys in the order
//                                      they are written, which the writer groups <group> at a
//                                      time; each group written is acknowledged by an "A" line of
//                                      its own, so a bulk write of n keys takes ceil(n / group)
//   A <etag>...                        the pending operation succeeded (one ETag per row; "-" for
//                                      a delete; none for C and D)
//   X <code> <failed_op>               the pending operation failed as the child intended
//   F <message>                        the child saw something wrong; it exits with status 3

#ifndef PARTKV_TESTS_CRASH_CRASH_MODEL_H_
#define PARTKV_TESTS_CRASH_CRASH_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "partkv/partkv.h"

namespace partkv::crash {

inline constexpr char kTableName[] = "Crash";

// Single-entity keys: s0..s7 × r00..r15. Batch groups: b0..b3 × g0..g3, each 24 rows.
inline constexpr int kSinglePartitions = 8;
inline constexpr int kSingleRows = 16;
inline constexpr int kGroupPartitions = 4;
inline constexpr int kGroupsPerPartition = 4;
inline constexpr int kGroupRows = 24;

// Bulk writes: k0..k5 × u00..u11, several PartitionKeys in one group.
inline constexpr int kBulkPartitions = 6;
inline constexpr int kBulkRows = 12;

// Side tables: Side0..Side3, of 1 or 2 physical partitions, written at t0..t1 × r00..r03.
inline constexpr int kSideTables = 4;
inline constexpr int kSidePartitionKeys = 2;
inline constexpr int kSideRows = 4;

std::string SideTableName(int i);
std::string SidePk(int i);

std::string SinglePk(int i);
std::string SingleRk(int j);
std::string BulkPk(int i);
std::string BulkRk(int j);
std::string GroupPk(int i);
std::string GroupRk(int group, int row);
std::vector<std::string> GroupRks(int group);

// The whole entity a write of generation `gen` stores at (pk, rk): every EDM type, and a String
// whose length (0..2 KiB, now and then 30 KiB) varies with the key and generation so memtables
// fill and flush.
Entity Content(const std::string& pk, const std::string& rk, int64_t gen);
// The properties a Merge of generation `gen` sets (a subset of Content's, plus "merged").
Entity MergePatch(const std::string& pk, const std::string& rk, int64_t gen);
// `base` with `patch`'s properties set on it.
Entity Merged(const Entity& base, const Entity& patch);

// Small memory budget: memtables flush every few hundred writes, so kills land in flushes and
// compactions too, not only in WAL appends.
StoreOptions CrashStoreOptions();

std::vector<std::string> SplitWords(const std::string& line);

}  // namespace partkv::crash

#endif  // PARTKV_TESTS_CRASH_CRASH_MODEL_H_
