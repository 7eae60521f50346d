// The comparison's verdict: the strategy that best serves the stated mix of writes and reads, the
// runner-up, the reasons in plain sentences, and the traps found in the candidates.
//
// Each strategy gets a score, lower is better, summed from four measures, each taken relative to
// the best strategy on it (log2 of the ratio: twice the best costs 1 point):
//   throttling   8 × the share of the busiest day refused, averaged over the three profiles
//                (Azure Table, DynamoDB, Cosmos DB) — an absolute measure: half refused costs 4;
//   cloud writes log2(predicted time to write the data, geometric mean over the profiles ÷ the
//                best's), where writing takes at least the data's span at the replay rate (the
//                data arrives no faster) and longer where the busiest partition's limit is
//                slower (partkv::Analyzer's seconds_with_skew): at a low write rate every
//                strategy takes the span, and a hot partition costs nothing;
//   reads        1.5 × the weighted mean over the reads of log2(the read's median ÷ the best
//                strategy's median for that read): a read twice as slow as it could be costs 1
//                whatever its absolute time, weighted as given (--read …@WEIGHT); medians (p50)
//                are robust to a machine's hiccups over a few samples; 0 without reads;
//   storage      0.5 × log2(bytes on disk ÷ the smallest).
// The weights are fixed so that scores are comparable between runs; the report prints each term.
//
// Traps are properties of a candidate that its numbers alone may hide:
//   collapsed shards   a sharded key uses far fewer suffixes than it has (the code-point product
//                      of IDs with the factors of N; a source attribute with few values);
//   hot value          one value of the key's source attribute holds more than a bucket's share
//                      (md5-bits, hash-suffix): hashing cannot split one value;
//   probing point read a point read that must try every shard of a random suffix;
//   table scan         a read that scans the whole table;
//   throttled          1 % or more of the busiest day refused under a profile.

#ifndef PARTKV_TOOLS_BENCH_RECOMMENDATION_H_
#define PARTKV_TOOLS_BENCH_RECOMMENDATION_H_

#include <string>
#include <vector>

#include "tools/bench/results.h"

namespace partkv::compare {

struct Trap {
  std::string strategy;  // the label
  std::string kind;      // "collapsed shards", "hot value", "probing point read", "table scan",
                         // "throttled"
  std::string text;      // one sentence, with the numbers
};

struct StrategyScore {
  std::string strategy;      // the label
  double refused = 0;        // mean share refused over the profiles, 0..1
  double cloud_seconds = 0;  // geometric mean of the predicted write times
  double read_micros = 0;    // the reads' medians' weighted geometric mean (0 without reads)
  uint64_t bytes = 0;
  // The terms of the score (see the header comment) and their sum.
  double throttling_term = 0, cloud_term = 0, read_term = 0, storage_term = 0;
  double score = 0;
};

struct Recommendation {
  std::vector<StrategyScore> scores;  // in the comparison's order
  std::string best;                   // label; empty without strategies
  std::string runner_up;              // label; empty with fewer than two
  std::vector<std::string> reasons;   // why `best`, one sentence each
  std::string versus_runner_up;       // what the runner-up loses on
  std::vector<Trap> traps;            // every candidate's, in the comparison's order
};

Recommendation Recommend(const ComparisonResult& result);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_RECOMMENDATION_H_
