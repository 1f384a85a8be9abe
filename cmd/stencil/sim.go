package main

import (
	"fmt"

	"stencillab.dev/lab"
)

// The simulator's part of `stencil run`'s summary: the traffic the
// simulator counted and the measured arithmetic intensity next to the
// model's.

// simFields turns the Stats of the last launch into summary lines and JSON
// fields.
func simFields(res lab.Result) []field {
	st, step, n := res.Stats, res.Step, res.NX
	bytes := func(key, label string, b, elems int64) field {
		return field{Key: key, Label: label, Value: b, Text: fmt.Sprintf("%d B (%d elements)", b, elems)}
	}
	fs := []field{
		{Key: "grid", Label: "Grid of blocks", Value: st.Grid.Shape(),
			Text: fmt.Sprintf("%d×%d×%d = %s, %d threads in all", st.Grid.X, st.Grid.Y, st.Grid.Z, plural(st.Grid.Size(), "block"), st.Threads)},
		{Key: "block", Label: "Block of threads", Value: st.Block.Shape(),
			Text: fmt.Sprintf("%s = %d threads, %d B of shared memory", st.Block.Shape(), st.Block.Size(), st.SharedBytesPerBlock)},
		bytes("global_load_bytes", "Global loads", st.GlobalLoadBytes, st.GlobalLoads),
		bytes("global_store_bytes", "Global stores", st.GlobalStoreBytes, st.GlobalStores),
		bytes("shared_load_bytes", "Shared loads", st.SharedLoadBytes, st.SharedLoads),
		bytes("shared_store_bytes", "Shared stores", st.SharedStoreBytes, st.SharedStores),
		{Key: "flops", Label: "Flops", Value: st.Flops, Text: fmt.Sprint(st.Flops)},
	}
	measured := st.OpPerByte()
	fs = append(fs, field{Key: "op_per_byte", Label: "Intensity", Value: measured,
		Text: fmt.Sprintf("%.4f OP/B measured (flops over global load bytes)", measured)})
	T := res.Config.Tile
	if model, err := lab.IntensityN(step, n, T); err == nil {
		far, _ := lab.Cost(step, max(T, 3))
		slides := far.OpPerByte()
		fs = append(fs, field{Key: "model_op_per_byte", Label: "Model intensity", Value: model,
			Text: fmt.Sprintf("%.4f OP/B on %d³ with edge blocks; %.2f for a block far from the edges", model, n, slides)})
	}
	return fs
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
