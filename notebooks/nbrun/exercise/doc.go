// Package exercise holds notebook 09's graded cells that are not
// predictions: the CUDA exercise checked in the notebook (CUDAExercise) and
// the class leaderboard of the CUDA challenge (ShowLeaderboard).
package exercise
