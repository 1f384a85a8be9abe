package checks

//go:generate go run -tags hidden ../../cmd/exercisegen -C ../..

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	"stencillab.dev/exercises/grading"
)

// Declared exercises. Every exercise is declared once, beside its checks,
// by a Decl: its folder, its title, its files, the functions the checks
// call (the fields of F, with their Go types), what a submitted file may
// use and its checks (the points with them). Everything else is derived
// from the declarations: All and its stubs, in the folders' order, the
// channel to the grader's child (grading.ServeFuncs in the child,
// grading.RemoteFuncs in Remote), the allow-list of the static check
// (Allowed), and, from the declaration and the exercise's file, notebook
// 09's cells and the tables of exercises (cmd/exercisegen). Where the
// student's function takes what cannot cross the channel as a value, F
// holds the function the checks call instead, and the exercise's
// constructor adapts the student's function to it: 01's Discretize gets
// the function to sample by its form (fnSpec), and the kernel exercises'
// Run gets a case and runs the student's kernel on the simulator of the
// process that holds it.

// Decl declares an exercise whose student functions are the func fields of
// F, each field named as the function of the student's file.
type Decl[F any] struct {
	// ID is the exercise's folder under exercises/, e.g. "11_launch".
	ID string
	// Title says what the exercise is about, in one line.
	Title string
	// Files are the files the student edits, in the folder.
	Files []string
	// Allow is what a submitted file may use beside base (see
	// grading.Exercise.Allow).
	Allow []string
	// Checks returns the public checks of fn.
	Checks func(fn F) []grading.Check
	// Hidden returns the instructor-only checks of fn; it is set by a
	// file built with the tag "hidden".
	Hidden func(fn F) []grading.Check
}

// Exercise returns the exercise checking fn: its checks (the hidden ones
// too where they are built), its allow-list and, for the grader's child,
// the handler that serves fn.
func (d *Decl[F]) Exercise(fn F) grading.Exercise {
	checks := d.Checks(fn)
	if d.Hidden != nil {
		checks = append(checks, d.Hidden(fn)...)
	}
	return grading.Exercise{
		ID: d.ID, Title: d.Title, Files: append([]string(nil), d.Files...), Checks: checks,
		Allow: slices.Concat(base, d.Allow), Serve: grading.ServeFuncs(fn, knownErrors),
	}
}

// declaration is what the package knows of a declared exercise,
// whatever its functions' type.
type declaration interface {
	// files are the files the student edits, in the folder.
	files() []string
	// stub is the exercise on functions not written yet.
	stub() (grading.Exercise, error)
	// remote is the exercise on functions that call the grader's child.
	remote(c *grading.Client) (grading.Exercise, error)
	// funcs is the type of the struct of the student's functions.
	funcs() reflect.Type
	// allow is what a submitted file may use beside base.
	allow() []string
}

func (d *Decl[F]) files() []string { return d.Files }

func (d *Decl[F]) funcs() reflect.Type { return reflect.TypeFor[F]() }

func (d *Decl[F]) allow() []string { return d.Allow }

func (d *Decl[F]) stub() (grading.Exercise, error) {
	var zero F
	s, err := grading.StubFuncs(zero)
	if err != nil {
		return grading.Exercise{}, fmt.Errorf("checks: %s: %w", d.ID, err)
	}
	return d.Exercise(s.(F)), nil
}

func (d *Decl[F]) remote(c *grading.Client) (grading.Exercise, error) {
	var fn F
	if err := grading.RemoteFuncs(&fn, c, knownErrors); err != nil {
		return grading.Exercise{}, fmt.Errorf("checks: %s: %w", d.ID, err)
	}
	return d.Exercise(fn), nil
}

// declarations holds the declared exercises by folder.
var declarations = map[string]declaration{}

// declare records d, which must have a folder no other exercise has and
// functions that can cross the channel; it is called by package-level
// variables only, so a mistake stops every test of the package at once.
func declare[F any](d *Decl[F]) *Decl[F] {
	var zero F
	if err := grading.CheckFuncs(zero); err != nil {
		panic(fmt.Sprintf("checks: declare %s: %v", d.ID, err))
	}
	if _, dup := declarations[d.ID]; dup || d.ID == "" || d.Checks == nil || len(d.Files) == 0 {
		panic(fmt.Sprintf("checks: declare %q: a folder, files and checks are needed, and the folder once", d.ID))
	}
	declarations[d.ID] = d
	return d
}

// declaredStubs returns the declared exercises, stubbed, by folder.
func declaredStubs() []grading.Exercise {
	ids := make([]string, 0, len(declarations))
	for id := range declarations {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]grading.Exercise, 0, len(ids))
	for _, id := range ids {
		e, err := declarations[id].stub()
		if err != nil {
			panic(err) // declare checked the functions: unreachable
		}
		out = append(out, e)
	}
	return out
}

// DeclaredFuncs returns the type of the struct of the student's functions
// of the declared exercise id, and whether id is declared.
func DeclaredFuncs(id string) (reflect.Type, bool) {
	d, ok := declarations[id]
	if !ok {
		return nil, false
	}
	return d.funcs(), true
}
