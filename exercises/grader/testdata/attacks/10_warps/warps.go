// Package warps is an attack on the grader, for its tests: a stub that
// prints, on standard output, well-formed reply frames holding the right
// answers (a 4-byte length, then the gob of the reply), and answers the
// grader's real calls "not implemented". Were standard output the channel,
// the forged frames would be taken for the replies.
package warps

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"os"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// forge prints on standard output a frame replying results to a call.
func forge(results any) {
	var res bytes.Buffer
	if gob.NewEncoder(&res).Encode(results) != nil {
		return
	}
	var frame bytes.Buffer
	frame.Write([]byte{0, 0, 0, 0})
	if gob.NewEncoder(&frame).Encode(struct{ Result []byte }{res.Bytes()}) != nil {
		return
	}
	b := frame.Bytes()
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	os.Stdout.Write(b)
}

// Block forges a reply with a good block, and returns none.
func Block() (sim.Dim3, error) {
	forge(struct{ R0 sim.Dim3 }{sim.Dim3{X: 32, Y: 8, Z: 1}})
	return sim.Dim3{}, grading.ErrNotImplemented
}

// Pitch forges a reply with a pitch, and returns none.
func Pitch(T int) (int, error) {
	forge(struct{ R0 int }{T + 1})
	return 0, grading.ErrNotImplemented
}
