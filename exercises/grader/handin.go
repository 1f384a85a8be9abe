package grader

import "stencillab.dev/exercises/handin"

// The student's files are read by package handin, for the Go and the CUDA
// exercises alike: links refused, regular files only, size-bounded. These
// names keep the grader's code short.

// maxSourceBytes bounds a submitted file.
const maxSourceBytes = handin.MaxSourceBytes

// errLink marks a submitted file that is a symbolic link, or lies in a
// folder that is one.
var errLink = handin.ErrLink

// errMissing marks a student file the submission does not have.
var errMissing = handin.ErrMissing

// readRegular reads a regular file that is not a link, at most
// maxSourceBytes.
func readRegular(p string) ([]byte, error) { return handin.ReadRegular(p, maxSourceBytes) }

// submissionFile reads a student file of a submission: DIR/exercises/ID/F,
// or DIR/ID/F when DIR is an exercises folder. No part of the path below
// DIR may be a link.
func submissionFile(dir, id, f string) ([]byte, error) { return handin.SubmissionFile(dir, id, f) }

// refused reports whether err refuses a hand-in (a link, a file that is
// not regular, too large or malformed, or missing): the student's fault,
// never the machine's.
func refused(err error) bool { return handin.Refused(err) }
