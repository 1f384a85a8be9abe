// Package checks holds the graded checks of every exercise of the lab.
//
// Each exercise is declared once, beside its checks, by a Decl (see
// declare.go), and has a constructor that takes the student's functions
// and returns the exercise with its checks: Sine for exercises/01_sine,
// Derivative for 02_derivative, and so on. The exercise's own test calls it
// on the package's functions; a notebook calls it on the functions written
// in its cells; All lists the exercises for the grader, and Remote builds
// them on the grader's child, both from the declarations.
//
// Checks draw fresh random inputs from the check's random source, use sizes
// that are not multiples of any tile, and compare with the lab's reference
// code. Known wrong answers (a swapped pair of coefficients, a wrong
// spacing) are computed too, so that a failure can name the mistake.
//
// Instructor-only checks live in files built with the tag "hidden"; the
// student release leaves those files out.
package checks
