// Package draw draws what the notebooks show: gonum/plot charts of traffic,
// intensity, scaling and temporal blocking, the diff map of a run's output
// (DiffMap, ShowDiff), the leaderboard and the text summaries of a bench.
package draw
