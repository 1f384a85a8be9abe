package checks

//go:generate go run -tags hidden ../../cmd/exercisegen -C ../..

import (
	"fmt"
	"reflect"
	"sort"

	"stencillab.dev/exercises/grading"
)

// Declared exercises. An exercise whose student functions take and return
// values is declared once, beside its checks, by a Decl: its folder, its
// title, its files, the functions the student writes (the fields of F,
// with their Go types), what a submitted file may use and its checks (the
// points with them). Everything else is derived from the declaration: the
// stubs of All, the channel to the grader's child (grading.ServeFuncs in
// the child, grading.RemoteFuncs in Remote), the allow-list of the static
// check, and, from the declaration and the exercise's file, notebook 09's
// cells and the tables of exercises (cmd/exercisegen).

// Decl declares an exercise whose student functions are the func fields of
// F, each field named as the function of the student's file; or, where
// those functions cannot cross the channel as values (a function as an
// argument, one grid passed twice and written in place, a kernel that
// runs on the child's simulator), whatever F the checks take, with the
// exercise's own channel in Wire.
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
	// Wire is the exercise's own channel, for an F that
	// grading.ServeFuncs cannot carry; nil for a struct of functions
	// that it can.
	Wire *Wire[F]
}

// Wire is the channel of an exercise whose functions the generic binding
// (grading.ServeFuncs, grading.RemoteFuncs) cannot carry, written for it
// and named by its declaration.
type Wire[F any] struct {
	// Methods are the methods Serve answers.
	Methods []string
	// Serve returns the handler that answers the grader's calls in the
	// child, calling fn.
	Serve func(fn F) grading.Handler
	// Remote returns what the checks call in the grader: calls through
	// c to the child.
	Remote func(c *grading.Client) F
	// Stub is the exercise's functions not written yet: each returns
	// grading.ErrNotImplemented.
	Stub F
}

// Exercise returns the exercise checking fn: its checks (the hidden ones
// too where they are built), its allow-list and, for the grader's child,
// the handler that serves fn.
func (d *Decl[F]) Exercise(fn F) grading.Exercise {
	checks := d.Checks(fn)
	if d.Hidden != nil {
		checks = append(checks, d.Hidden(fn)...)
	}
	e := grading.Exercise{
		ID: d.ID, Title: d.Title, Files: append([]string(nil), d.Files...), Checks: checks,
		Allow: join(base, d.Allow),
	}
	if d.Wire != nil {
		e.Serve = d.Wire.Serve(fn)
	} else {
		e.Serve = grading.ServeFuncs(fn, knownErrors)
	}
	return e
}

// declaration is what the package knows of a declared exercise,
// whatever its functions' type.
type declaration interface {
	id() string
	// stub is the exercise on functions not written yet.
	stub() (grading.Exercise, error)
	// remote is the exercise on functions that call the grader's child.
	remote(c *grading.Client) (grading.Exercise, error)
	// funcs is the type of the struct of the student's functions; nil
	// for an exercise with a channel of its own.
	funcs() reflect.Type
	// methods are the methods its handler serves.
	methods() []string
	// allow is what a submitted file may use beside base.
	allow() []string
}

func (d *Decl[F]) id() string { return d.ID }

func (d *Decl[F]) funcs() reflect.Type {
	if d.Wire != nil {
		return nil
	}
	return reflect.TypeFor[F]()
}

func (d *Decl[F]) methods() []string {
	if d.Wire != nil {
		return d.Wire.Methods
	}
	t := reflect.TypeFor[F]()
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

func (d *Decl[F]) allow() []string { return d.Allow }

func (d *Decl[F]) stub() (grading.Exercise, error) {
	if d.Wire != nil {
		return d.Exercise(d.Wire.Stub), nil
	}
	var zero F
	s, err := grading.StubFuncs(zero)
	if err != nil {
		return grading.Exercise{}, fmt.Errorf("checks: %s: %w", d.ID, err)
	}
	return d.Exercise(s.(F)), nil
}

func (d *Decl[F]) remote(c *grading.Client) (grading.Exercise, error) {
	if d.Wire != nil {
		return d.Exercise(d.Wire.Remote(c)), nil
	}
	var fn F
	if err := grading.RemoteFuncs(&fn, c, knownErrors); err != nil {
		return grading.Exercise{}, fmt.Errorf("checks: %s: %w", d.ID, err)
	}
	return d.Exercise(fn), nil
}

// declarations holds the declared exercises by folder.
var declarations = map[string]declaration{}

// declare records d, which must have a folder no other exercise has and
// functions that can cross the channel, or a whole channel of its own; it
// is called by package-level variables only, so a mistake stops every
// test of the package at once.
func declare[F any](d *Decl[F]) *Decl[F] {
	var zero F
	if w := d.Wire; w != nil {
		if w.Serve == nil || w.Remote == nil || len(w.Methods) == 0 {
			panic(fmt.Sprintf("checks: declare %s: a channel of its own needs its methods, Serve and Remote", d.ID))
		}
	} else if err := grading.CheckFuncs(zero); err != nil {
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
// of the declared exercise id, and whether id is declared with one (an
// exercise with a channel of its own is not).
func DeclaredFuncs(id string) (reflect.Type, bool) {
	d, ok := declarations[id]
	if !ok || d.funcs() == nil {
		return nil, false
	}
	return d.funcs(), true
}
