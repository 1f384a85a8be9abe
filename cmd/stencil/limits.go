package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"stencillab.dev/lab"
)

// checkRepsFlag returns an error naming the limit unless 1 ≤ reps ≤
// lab.MaxReps: each repetition keeps its times, and an absurd count
// would grow memory for nothing.
func checkRepsFlag(reps int) error {
	switch {
	case reps < 1:
		return fmt.Errorf("-reps %d: need at least one repetition", reps)
	case reps > lab.MaxReps:
		return fmt.Errorf("-reps %d: exceeds the limit of %d repetitions", reps, lab.MaxReps)
	}
	return nil
}

// checkStepsFlag returns an error naming the limit unless min ≤ steps ≤
// lab.MaxSteps.
func checkStepsFlag(steps, min int) error {
	switch {
	case steps < min && min == 0:
		return fmt.Errorf("-steps %d: need at least one time step (or 0 for one pass)", steps)
	case steps < min:
		return fmt.Errorf("-steps %d: need at least %d time step", steps, min)
	case steps > lab.MaxSteps:
		return fmt.Errorf("-steps %d: exceeds the limit of %d time steps", steps, lab.MaxSteps)
	}
	return nil
}

// lookupStep is lab.LookupStep for the value of a flag, whose error names
// the steps nearest a mistyped one: `-kernel "tiledd" is not a step: lab:
// step "tiledd": unknown (did you mean "tiled"?) …`.
func lookupStep(flagName, name string) (lab.Step, error) {
	s, err := lab.LookupStep(name)
	if err != nil {
		return s, fmt.Errorf("%s %q is not a step: %w", flagName, name, err)
	}
	return s, nil
}

// notA3DStep is the usage error of a flag whose value lab.Resolve did not
// find among the 3D steps (err): a step of fewer dimensions is named as
// such, anything else as no step.
func notA3DStep(flagName, name string, err error) error {
	if s, lerr := lab.LookupStep(name); lerr == nil {
		return fmt.Errorf("%s %s is a %dD step; run runs the 3D steps", flagName, s.Name, s.Dim)
	}
	if err == nil { // a broken kernel of a step: lab.LookupStep says it is no step
		_, err = lab.LookupStep(name)
	}
	return fmt.Errorf("%s %q is not a step: %w", flagName, name, err)
}

// checkWritable returns an error unless a file can be written at path: its
// folder exists and takes a new file. It writes and removes a scratch file
// beside path and leaves path itself alone.
func checkWritable(path string) error {
	if path == "" {
		return errors.New("no file named")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder, not a file", path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("cannot write %s: its folder %s does not exist", path, dir)
	}
	f, err := os.CreateTemp(dir, ".stencil-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if cerr != nil {
		return fmt.Errorf("cannot write %s: %w", path, cerr)
	}
	return nil
}
