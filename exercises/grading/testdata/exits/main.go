// Command exits grades, as a notebook's grade cell does, an exercise whose
// code ends the program with status 0 during a check, for the tests of
// grading.Print.
package main

import (
	"os"

	"stencillab.dev/exercises/grading"
)

func main() {
	grading.Print(grading.Exercise{ID: "01_exits", Title: "Exits", Checks: []grading.Check{
		{ID: "first", Points: 1, Run: func(*grading.T) {}},
		{ID: "second", Points: 2, Run: func(*grading.T) { os.Exit(0) }},
	}})
}
