// Package data reads the lab's committed records for the notebooks, each
// file bounded in size (MaxDataFile): the H200 bench and the DRAM traffic a
// profiler measured, the cards' temporal benches, the multi-GPU and peers
// runs and the comparison with sharded JAX; and it writes their tables.
// Paths are relative to the repository's root (RepoRoot); a missing record
// is told apart with IsMissing.
package data
