package grading

import (
	"errors"
	"fmt"
	"reflect"
)

// One binding for every exercise whose functions take and return values:
// the student's functions are the func fields of a struct (SineFuncs,
// LaunchFuncs, …), and each field's name is the method called across the
// channel. ServeFuncs answers the calls in the child; RemoteFuncs fills
// such a struct in the grader with functions that make them. The messages
// are gob, size-bounded by the channel; their types are built from the
// fields' signatures on each side (a struct of the arguments, a struct of
// the results), so a reply of the wrong shape is malformed and breaks the
// channel (Client.Call) rather than reaching a check. Errors cross as
// WireError, their identity kept for the known errors only; a slice
// argument comes back as the child left it and is copied into the
// caller's slice of the same length, as if the function had run here.

// errorType is the type of the error interface.
var errorType = reflect.TypeFor[error]()

// wireErrorType is how an error crosses the channel.
var wireErrorType = reflect.TypeFor[*WireError]()

// wireType returns the type a value of type t crosses the channel as, or
// an error for a type that cannot cross it (a function, a channel, an
// interface other than error).
func wireType(t reflect.Type) (reflect.Type, error) {
	if t == errorType {
		return wireErrorType, nil
	}
	if err := checkWire(t, 0); err != nil {
		return nil, err
	}
	return t, nil
}

// checkWire refuses a type holding a function, a channel, an interface,
// an unsafe pointer or an unexported field, at any depth.
func checkWire(t reflect.Type, depth int) error {
	if depth > 20 {
		return fmt.Errorf("grading: bind: type %s nests deeper than 20 levels", t)
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer, reflect.Uintptr:
		return fmt.Errorf("grading: bind: a %s (%s) cannot cross the channel", t.Kind(), t)
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkWire(t.Elem(), depth+1)
	case reflect.Map:
		if err := checkWire(t.Key(), depth+1); err != nil {
			return err
		}
		return checkWire(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("grading: bind: %s has the unexported field %s, which gob would drop", t, f.Name)
			}
			if err := checkWire(f.Type, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// signature is the wire form of one function: the struct its arguments
// cross in (A0, A1, …) and the struct its results cross in (R0, R1, …,
// then S0, S1, … for the slice arguments after the call).
type signature struct {
	fn         reflect.Type
	args, outs reflect.Type
	slices     []int // the indexes of the slice arguments
}

func newSignature(fn reflect.Type) (*signature, error) {
	if fn.Kind() != reflect.Func {
		return nil, fmt.Errorf("grading: bind: %s is not a function", fn)
	}
	if fn.IsVariadic() {
		return nil, fmt.Errorf("grading: bind: %s is variadic", fn)
	}
	s := &signature{fn: fn}
	var args, outs []reflect.StructField
	for i := range fn.NumIn() {
		t, err := wireType(fn.In(i))
		if err != nil {
			return nil, err
		}
		args = append(args, reflect.StructField{Name: fmt.Sprintf("A%d", i), Type: t})
		if fn.In(i).Kind() == reflect.Slice {
			s.slices = append(s.slices, i)
		}
	}
	for i := range fn.NumOut() {
		t, err := wireType(fn.Out(i))
		if err != nil {
			return nil, err
		}
		outs = append(outs, reflect.StructField{Name: fmt.Sprintf("R%d", i), Type: t})
	}
	for _, i := range s.slices {
		outs = append(outs, reflect.StructField{Name: fmt.Sprintf("S%d", i), Type: fn.In(i)})
	}
	s.args, s.outs = reflect.StructOf(args), reflect.StructOf(outs)
	return s, nil
}

// toWire returns v (of type t) as it crosses the channel.
func toWire(known KnownErrors, t reflect.Type, v reflect.Value) reflect.Value {
	if t != errorType {
		return v
	}
	var err error
	if !v.IsNil() {
		err = v.Interface().(error)
	}
	return reflect.ValueOf(known.Wire(err))
}

// fromWire returns the value of type t that w stands for.
func fromWire(known KnownErrors, t reflect.Type, w reflect.Value) reflect.Value {
	if t != errorType {
		return w
	}
	v := reflect.New(errorType).Elem()
	if err := known.Err(w.Interface().(*WireError)); err != nil {
		v.Set(reflect.ValueOf(err))
	}
	return v
}

// funcFields returns the func fields of the struct type t, by name.
func funcFields(t reflect.Type) (map[string]*signature, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("grading: bind: %s is not a struct of functions", t)
	}
	out := map[string]*signature{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Func {
			return nil, fmt.Errorf("grading: bind: field %s of %s is not an exported function", f.Name, t)
		}
		s, err := newSignature(f.Type)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		out[f.Name] = s
	}
	return out, nil
}

// CheckFuncs reports whether funcs, a struct of functions (not a pointer),
// can be served and called across the channel.
func CheckFuncs(funcs any) error {
	if funcs == nil {
		return errors.New("grading: bind: nil functions")
	}
	_, err := funcFields(reflect.TypeOf(funcs))
	return err
}

// ServeFuncs returns the handler that answers, in the child, the calls
// RemoteFuncs makes: method is a field of funcs (a struct of functions),
// whose arguments are decoded, the function called and its results and
// slice arguments sent back. A method that is not a field, a nil field or
// arguments that do not decode are an error of the call, never a panic of
// the handler. known names the errors whose identity crosses.
func ServeFuncs(funcs any, known KnownErrors) Handler {
	if err := CheckFuncs(funcs); err != nil {
		return func(string, []byte) ([]byte, error) { return nil, err }
	}
	v := reflect.ValueOf(funcs)
	sigs, _ := funcFields(v.Type())
	return func(method string, b []byte) ([]byte, error) {
		s, ok := sigs[method]
		if !ok {
			return nil, fmt.Errorf("no method %q", clip(method, 40))
		}
		f := v.FieldByName(method)
		if f.IsNil() {
			return nil, fmt.Errorf("method %q has no function", method)
		}
		args := reflect.New(s.args)
		if err := Decode(b, args.Interface()); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		in := make([]reflect.Value, s.fn.NumIn())
		for i := range in {
			in[i] = fromWire(known, s.fn.In(i), args.Elem().Field(i))
		}
		out := f.Call(in)
		res := reflect.New(s.outs).Elem()
		for i, o := range out {
			res.Field(i).Set(toWire(known, s.fn.Out(i), o))
		}
		for k, i := range s.slices {
			res.Field(len(out) + k).Set(in[i])
		}
		return Encode(res.Interface())
	}
}

// RemoteFuncs sets every field of *dst, a struct of functions, to a
// function that calls the same field of the child's struct through c
// (ServeFuncs) and returns what it returned. A call that fails stops the
// check as Client.Call does; what the child sends is only ever decoded
// into the results' types.
func RemoteFuncs(dst any, c *Client, known KnownErrors) error {
	p := reflect.ValueOf(dst)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return fmt.Errorf("grading: bind: %T is not a pointer to a struct of functions", dst)
	}
	v := p.Elem()
	sigs, err := funcFields(v.Type())
	if err != nil {
		return err
	}
	for name, s := range sigs {
		v.FieldByName(name).Set(reflect.MakeFunc(s.fn, func(in []reflect.Value) []reflect.Value {
			args := reflect.New(s.args).Elem()
			for i, a := range in {
				args.Field(i).Set(toWire(known, s.fn.In(i), a))
			}
			res := reflect.New(s.outs)
			c.Call(name, args.Interface(), res.Interface())
			for k, i := range s.slices {
				back := res.Elem().Field(s.fn.NumOut() + k)
				if !in[i].IsNil() && back.Len() == in[i].Len() {
					reflect.Copy(in[i], back)
				}
			}
			out := make([]reflect.Value, s.fn.NumOut())
			for i := range out {
				out[i] = fromWire(known, s.fn.Out(i), res.Elem().Field(i))
			}
			return out
		}))
	}
	return nil
}

// StubFuncs returns a struct of the type of funcs whose every function
// returns the zero values and ErrNotImplemented for its error results:
// the functions of an exercise not written yet.
func StubFuncs(funcs any) (any, error) {
	if err := CheckFuncs(funcs); err != nil {
		return nil, err
	}
	t := reflect.TypeOf(funcs)
	v := reflect.New(t).Elem()
	for i := range t.NumField() {
		ft := t.Field(i).Type
		v.Field(i).Set(reflect.MakeFunc(ft, func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, ft.NumOut())
			for k := range out {
				out[k] = reflect.New(ft.Out(k)).Elem()
				if ft.Out(k) == errorType {
					out[k].Set(reflect.ValueOf(ErrNotImplemented))
				}
			}
			return out
		}))
	}
	return v.Interface(), nil
}
