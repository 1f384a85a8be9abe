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
// caller's slice of the same length, as if the function had run here. A
// pointer argument or result crosses as what it points to, or as nil; a
// pointer argument that is an earlier one (one grid passed as dst and as
// src) crosses as that one, so that the child's function is handed the
// same pointer twice, and what it points to comes back and is copied
// into the caller's value as a slice is.

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
// then S0, S1, … for the slice arguments and P0, P1, … for the pointer
// arguments after the call).
type signature struct {
	fn         reflect.Type
	args, outs reflect.Type
	slices     []int // the indexes of the slice arguments
	ptrs       []int // the indexes of the pointer arguments
}

// ptrWireType is how a pointer to elem crosses the channel: Nil for a
// nil pointer; Same, for an argument, 1 + the index of an earlier
// argument that is the same pointer; else V, the value pointed to.
func ptrWireType(elem reflect.Type) reflect.Type {
	return reflect.StructOf([]reflect.StructField{
		{Name: "Nil", Type: reflect.TypeFor[bool]()},
		{Name: "Same", Type: reflect.TypeFor[int]()},
		{Name: "V", Type: elem},
	})
}

// argWireType returns the type the argument or result t crosses as.
func argWireType(t reflect.Type) (reflect.Type, error) {
	if t.Kind() == reflect.Pointer {
		if err := checkWire(t.Elem(), 1); err != nil {
			return nil, err
		}
		return ptrWireType(t.Elem()), nil
	}
	return wireType(t)
}

// toPtrWire returns the pointer p (of a pointer type) as it crosses, its
// value included.
func toPtrWire(wt reflect.Type, p reflect.Value) reflect.Value {
	w := reflect.New(wt).Elem()
	if p.IsNil() {
		w.Field(0).SetBool(true)
	} else {
		w.Field(2).Set(p.Elem())
	}
	return w
}

// fromPtrWire returns the pointer of type t that w stands for; earlier
// are the arguments before it, which Same may name.
func fromPtrWire(t reflect.Type, w reflect.Value, earlier []reflect.Value) (reflect.Value, error) {
	if w.Field(0).Bool() {
		return reflect.Zero(t), nil
	}
	if same := int(w.Field(1).Int()); same != 0 {
		j := same - 1
		if j < 0 || j >= len(earlier) || earlier[j].Type() != t || earlier[j].IsNil() {
			return reflect.Value{}, fmt.Errorf("grading: %w: argument %d is said to be argument %d, which is not a pointer of its type", ErrMalformed, len(earlier), j)
		}
		return earlier[j], nil
	}
	p := reflect.New(t.Elem())
	p.Elem().Set(w.Field(2))
	return p, nil
}

// copyInto copies src into dst, a value of the same type, as the student's
// function would have written it here: a slice of another length, or a
// nil slice, is left as it is; a slice of the same length is copied into,
// element by element, so that the caller's slice keeps its array.
func copyInto(dst, src reflect.Value, depth int) {
	if depth > 20 {
		return
	}
	switch dst.Kind() {
	case reflect.Slice:
		if dst.IsNil() || dst.Len() != src.Len() {
			return
		}
		switch dst.Type().Elem().Kind() {
		case reflect.Slice, reflect.Array, reflect.Struct:
			for k := range dst.Len() {
				copyInto(dst.Index(k), src.Index(k), depth+1)
			}
		default:
			reflect.Copy(dst, src)
		}
	case reflect.Array:
		for k := range dst.Len() {
			copyInto(dst.Index(k), src.Index(k), depth+1)
		}
	case reflect.Struct:
		for k := range dst.NumField() {
			copyInto(dst.Field(k), src.Field(k), depth+1)
		}
	default:
		dst.Set(src)
	}
}

// sliceField is the index in outs of S for the k-th slice argument.
func (s *signature) sliceField(k int) int { return s.fn.NumOut() + k }

// ptrField is the index in outs of P for the k-th pointer argument.
func (s *signature) ptrField(k int) int { return s.fn.NumOut() + len(s.slices) + k }

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
		t, err := argWireType(fn.In(i))
		if err != nil {
			return nil, err
		}
		args = append(args, reflect.StructField{Name: fmt.Sprintf("A%d", i), Type: t})
		switch fn.In(i).Kind() {
		case reflect.Slice:
			s.slices = append(s.slices, i)
		case reflect.Pointer:
			s.ptrs = append(s.ptrs, i)
		}
	}
	for i := range fn.NumOut() {
		t, err := argWireType(fn.Out(i))
		if err != nil {
			return nil, err
		}
		outs = append(outs, reflect.StructField{Name: fmt.Sprintf("R%d", i), Type: t})
	}
	for _, i := range s.slices {
		outs = append(outs, reflect.StructField{Name: fmt.Sprintf("S%d", i), Type: fn.In(i)})
	}
	for _, i := range s.ptrs {
		outs = append(outs, reflect.StructField{Name: fmt.Sprintf("P%d", i), Type: ptrWireType(fn.In(i).Elem())})
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
			a := args.Elem().Field(i)
			if t := s.fn.In(i); t.Kind() == reflect.Pointer {
				p, err := fromPtrWire(t, a, in[:i])
				if err != nil {
					return nil, fmt.Errorf("%s: %w", method, err)
				}
				in[i] = p
				continue
			}
			in[i] = fromWire(known, s.fn.In(i), a)
		}
		out := f.Call(in)
		res := reflect.New(s.outs).Elem()
		for i, o := range out {
			if t := s.fn.Out(i); t.Kind() == reflect.Pointer {
				res.Field(i).Set(toPtrWire(res.Field(i).Type(), o))
				continue
			}
			res.Field(i).Set(toWire(known, s.fn.Out(i), o))
		}
		for k, i := range s.slices {
			res.Field(s.sliceField(k)).Set(in[i])
		}
		for k, i := range s.ptrs {
			f := res.Field(s.ptrField(k))
			f.Set(toPtrWire(f.Type(), in[i]))
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
				if a.Kind() == reflect.Pointer {
					args.Field(i).Set(toPtrWire(args.Field(i).Type(), a))
					for j := range i { // the same pointer as an earlier argument crosses as that one
						if !a.IsNil() && in[j].Type() == a.Type() && in[j].Pointer() == a.Pointer() {
							args.Field(i).Set(reflect.Zero(args.Field(i).Type()))
							args.Field(i).Field(1).SetInt(int64(j + 1))
							break
						}
					}
					continue
				}
				args.Field(i).Set(toWire(known, s.fn.In(i), a))
			}
			res := reflect.New(s.outs)
			c.Call(name, args.Interface(), res.Interface())
			for k, i := range s.slices {
				back := res.Elem().Field(s.sliceField(k))
				if !in[i].IsNil() && back.Len() == in[i].Len() {
					reflect.Copy(in[i], back)
				}
			}
			for k, i := range s.ptrs {
				back := res.Elem().Field(s.ptrField(k))
				if !in[i].IsNil() && !back.Field(0).Bool() {
					copyInto(in[i].Elem(), back.Field(2), 0)
				}
			}
			out := make([]reflect.Value, s.fn.NumOut())
			for i := range out {
				r := res.Elem().Field(i)
				if t := s.fn.Out(i); t.Kind() == reflect.Pointer { // a result is its own value: Same is not read
					out[i] = reflect.Zero(t)
					if !r.Field(0).Bool() {
						out[i] = reflect.New(t.Elem())
						out[i].Elem().Set(r.Field(2))
					}
					continue
				}
				out[i] = fromWire(known, s.fn.Out(i), r)
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
