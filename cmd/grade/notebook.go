package main

import "stencillab.dev/exercises/handin"

// A student may hand in the notebook notebooks/09_exercises.ipynb instead
// of the exercise files: package handin reads it (bounded, outputs
// dropped) and writes its code cells as the exercise files.

// notebookName is the file name of a notebook submission.
const notebookName = handin.NotebookName
