// Package grader grades the lab's exercises: one submission (Grade,
// Config) and a class of them (GradeClass, ClassConfig), and it is the
// whole of the grade command (Run; cmd/grade is its main, and documents
// the flags).
//
// A submission goes through stages, each with one job, in the order of
// nbgrader's preprocessors:
//
//   - collect: the student files of each exercise are read, refusing links
//     and oversized files, and laid over the repository (job.overlay,
//     package handin);
//   - identify: a class folder becomes one entry per student, named by the
//     roster, split by -shard (classEntries, shardEntries);
//   - static check: each file is type-checked against what its exercise
//     allows (staticCheck, package grading's Static), its verdict kept
//     (verdicts.go);
//   - build: the exercise's test binary is built with `go test -c`, within
//     the build limits, kept in the cache (job.build, trusted.go);
//   - run: the binary runs as a child in the sandbox, with a time and a
//     memory limit, answering the checks' calls (job.run, sandbox.go; the
//     CUDA exercises on the GPUs, cuda.go and gpus.go);
//   - verdict: what the child did becomes a result: the checks' points,
//     or 0 with the reason (diagnose), kept when the same inputs repeat it;
//   - gradebook: the results of a class become its gradebook, with the
//     overrides, the roster and the leaderboard (class.go, leaderboard.go);
//   - export: the gradebook is merged, exported for a learning-management
//     system, or compared for similarity (course.go, similarity.go).
//
// The grader starts its own binary again as its children (Child): a
// program that uses this package calls Child first in its main. Where the
// hidden checks are wanted and this build lacks them, the grader builds
// cmd/grade of the repository with the tag "hidden" by its package path
// and lets that program grade (trusted.go).
package grader
