package multi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// EnvRendezvous names the host:port where rank 0 of a split run over
// several processes listens for the others, to hand them NCCL's unique id.
const EnvRendezvous = "STENCIL_RENDEZVOUS"

// defaultRendezvous is the address used when every rank runs on one host
// and EnvRendezvous is unset.
const defaultRendezvous = "127.0.0.1:29517"

// ProcessRank is this process's place among the processes of a launch, as
// the launcher's environment gives it.
type ProcessRank struct {
	Rank, Size int    // the world rank and size
	Local      int    // the rank among the processes of this host
	LocalSize  int    // processes on this host; 0 when the launcher does not say
	Launcher   string // "OpenMPI" or "Slurm"
}

// processRank reads the launcher's environment: OpenMPI's
// OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK and _LOCAL_SIZE, else Slurm's
// SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID. ok is false when neither
// launcher set a world of more than one process; a malformed or
// inconsistent value is an error naming the variable.
func processRank(getenv func(string) string) (pr ProcessRank, ok bool, err error) {
	type vars struct{ launcher, rank, size, local, localSize string }
	for _, v := range []vars{
		{"OpenMPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
		{"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", ""},
	} {
		if getenv(v.size) == "" {
			continue
		}
		num := func(name string, required bool) (int, error) {
			s := strings.TrimSpace(getenv(name))
			if s == "" && !required {
				return 0, nil
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > 1<<20 {
				return 0, fmt.Errorf("gpu: %s=%q: want a count from 0 to %d", name, s, 1<<20)
			}
			return n, nil
		}
		pr.Launcher = v.launcher
		if pr.Size, err = num(v.size, true); err != nil {
			return pr, false, err
		}
		if pr.Rank, err = num(v.rank, true); err != nil {
			return pr, false, err
		}
		if pr.Local, err = num(v.local, false); err != nil {
			return pr, false, err
		}
		if v.localSize != "" {
			if pr.LocalSize, err = num(v.localSize, false); err != nil {
				return pr, false, err
			}
		}
		switch {
		case pr.Size < 1:
			return pr, false, fmt.Errorf("gpu: %s=%d: a world has at least one process", v.size, pr.Size)
		case pr.Rank >= pr.Size:
			return pr, false, fmt.Errorf("gpu: %s=%d is not below %s=%d", v.rank, pr.Rank, v.size, pr.Size)
		case pr.LocalSize > 0 && pr.Local >= pr.LocalSize:
			return pr, false, fmt.Errorf("gpu: %s=%d is not below %s=%d", v.local, pr.Local, v.localSize, pr.LocalSize)
		}
		return pr, pr.Size > 1, nil
	}
	return pr, false, nil
}

// rendezvousAddr returns the address of the rendezvous: EnvRendezvous, or
// on one host 127.0.0.1:29517.
func rendezvousAddr(getenv func(string) string, pr ProcessRank) (string, error) {
	a := strings.TrimSpace(getenv(EnvRendezvous))
	if a == "" {
		if pr.LocalSize == pr.Size {
			return defaultRendezvous, nil
		}
		return "", fmt.Errorf("gpu: %d processes over several hosts need %s=host:port, an address of rank 0's host that the others reach",
			pr.Size, EnvRendezvous)
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "", fmt.Errorf("gpu: %s=%q: want host:port: %w", EnvRendezvous, a, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("gpu: %s=%q: the port must be from 1 to 65535", EnvRendezvous, a)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return net.JoinHostPort(host, port), nil
}

// localDevice returns the device ordinal of a process of a launch: 0 when
// CUDA_VISIBLE_DEVICES leaves it one device, else devices[Local mod
// len(devices)] (the ordinals of the host's GPUs, -gpus), or Local
// itself without a list.
func localDevice(getenv func(string) string, pr ProcessRank, devices []int) int {
	if oneVisible(getenv) {
		return 0
	}
	if len(devices) > 0 {
		return devices[pr.Local%len(devices)]
	}
	return pr.Local
}

// rendezvousMagic opens every message of the rendezvous, with its version.
const rendezvousMagic = "STENCIL-RDV1"

// maxPayload bounds one rank's gathered payload, bytes.
const maxPayload = 1 << 40

// Rendezvous connects the processes of a split run: rank 0 listens, the
// others connect to it. It hands out NCCL's unique id and gathers small
// results (times, and for a check the owned points) to rank 0.
type Rendezvous struct {
	rank, size int
	ln         net.Listener
	peers      []net.Conn // rank 0: the connection of each rank (nil for itself)
	conn       net.Conn   // other ranks: the connection to rank 0
}

// ErrRendezvous is wrapped by the errors of the rendezvous.
var ErrRendezvous = errors.New("rendezvous")

func rdvErr(format string, a ...any) error {
	return fmt.Errorf("gpu: rendezvous: "+format+": %w", append(a, ErrRendezvous)...)
}

// Listen makes rank 0's end: it listens at addr for size−1 ranks.
func Listen(addr string, size int) (*Rendezvous, error) {
	if size < 1 {
		return nil, rdvErr("a world of %d ranks", size)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, rdvErr("rank 0 listens at %s: %v", addr, err)
	}
	return &Rendezvous{rank: 0, size: size, ln: ln, peers: make([]net.Conn, size)}, nil
}

// Addr returns where rank 0 listens ("" once every rank joined).
func (r *Rendezvous) Addr() string {
	if r.ln == nil {
		return ""
	}
	return r.ln.Addr().String()
}

// Accept waits, up to timeout, for every other rank to connect and then
// sends each the id. A rank that connects twice, names another world size
// or a rank outside it is refused with an error naming it.
func (r *Rendezvous) Accept(id []byte, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for joined := 1; joined < r.size; joined++ {
		if tl, ok := r.ln.(*net.TCPListener); ok {
			tl.SetDeadline(deadline)
		}
		c, err := r.ln.Accept()
		if err != nil {
			return rdvErr("rank 0 waited %v for %d of %d ranks: %v", timeout, r.size-joined, r.size-1, err)
		}
		c.SetDeadline(deadline)
		rank, size, err := readHello(c)
		if err != nil {
			c.Close()
			return err
		}
		switch {
		case size != r.size:
			c.Close()
			return rdvErr("rank %d is in a world of %d ranks, rank 0 in one of %d", rank, size, r.size)
		case rank < 1 || rank >= r.size:
			c.Close()
			return rdvErr("rank %d is not a rank from 1 to %d", rank, r.size-1)
		case r.peers[rank] != nil:
			c.Close()
			return rdvErr("rank %d connected twice", rank)
		}
		r.peers[rank] = c
	}
	for rank, c := range r.peers {
		if c == nil {
			continue
		}
		if err := writeFrame(c, id); err != nil {
			return rdvErr("send the id to rank %d: %v", rank, err)
		}
		c.SetDeadline(time.Time{})
	}
	// No one else may join: a rank of the next run dials until the next
	// listener opens.
	err := r.ln.Close()
	r.ln = nil
	if err != nil {
		return rdvErr("close the listener: %v", err)
	}
	return nil
}

// Dial connects rank (1 ≤ rank < size) to rank 0 at addr, retrying until
// timeout while rank 0 is not yet listening, and returns the id rank 0
// sends.
func Dial(addr string, rank, size int, timeout time.Duration) (*Rendezvous, []byte, error) {
	if rank < 1 || rank >= size {
		return nil, nil, rdvErr("rank %d of %d dials rank 0: want a rank from 1 to %d", rank, size, size-1)
	}
	deadline := time.Now().Add(timeout)
	var last error
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		c, id, err := dialOnce(addr, rank, size, deadline)
		if err == nil {
			return &Rendezvous{rank: rank, size: size, conn: c}, id, nil
		}
		last = err
		if time.Now().Add(wait).After(deadline) {
			return nil, nil, rdvErr("rank %d could not reach rank 0 at %s within %v: %v", rank, addr, timeout, last)
		}
		time.Sleep(wait)
	}
}

// dialOnce connects to rank 0, greets it and reads the id. A listener
// that closes before it sends the id (the previous run's) is an error the
// caller retries.
func dialOnce(addr string, rank, size int, deadline time.Time) (net.Conn, []byte, error) {
	c, err := net.DialTimeout("tcp", addr, max(time.Until(deadline), time.Millisecond))
	if err != nil {
		return nil, nil, err
	}
	c.SetDeadline(deadline)
	if err := writeHello(c, rank, size); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("greet rank 0: %w", err)
	}
	id, err := readFrame(c, 1<<16)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("wait for the id from rank 0: %w", err)
	}
	c.SetDeadline(time.Time{})
	return c, id, nil
}

// Gather sends each rank's payload to rank 0, which gets them all in rank
// order (its own first); other ranks get nil.
func (r *Rendezvous) Gather(payload []byte) ([][]byte, error) {
	if r.rank != 0 {
		if err := writeFrame(r.conn, payload); err != nil {
			return nil, rdvErr("rank %d sends to rank 0: %v", r.rank, err)
		}
		return nil, nil
	}
	out := make([][]byte, r.size)
	out[0] = payload
	for rank := 1; rank < r.size; rank++ {
		b, err := readFrame(r.peers[rank], maxPayload)
		if err != nil {
			return nil, rdvErr("rank 0 receives from rank %d: %v", rank, err)
		}
		out[rank] = b
	}
	return out, nil
}

// Broadcast sends rank 0's payload to every rank and returns it.
func (r *Rendezvous) Broadcast(payload []byte) ([]byte, error) {
	if r.rank != 0 {
		b, err := readFrame(r.conn, maxPayload)
		if err != nil {
			return nil, rdvErr("rank %d receives from rank 0: %v", r.rank, err)
		}
		return b, nil
	}
	for rank := 1; rank < r.size; rank++ {
		if err := writeFrame(r.peers[rank], payload); err != nil {
			return nil, rdvErr("rank 0 sends to rank %d: %v", rank, err)
		}
	}
	return payload, nil
}

// Close closes the connections and the listener.
func (r *Rendezvous) Close() error {
	var errs []error
	for _, c := range append(r.peers, r.conn) {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	if r.ln != nil {
		errs = append(errs, r.ln.Close())
	}
	return errors.Join(errs...)
}

func writeHello(w io.Writer, rank, size int) error {
	b := make([]byte, len(rendezvousMagic)+8)
	copy(b, rendezvousMagic)
	binary.LittleEndian.PutUint32(b[len(rendezvousMagic):], uint32(rank))
	binary.LittleEndian.PutUint32(b[len(rendezvousMagic)+4:], uint32(size))
	_, err := w.Write(b)
	return err
}

func readHello(r io.Reader) (rank, size int, err error) {
	b := make([]byte, len(rendezvousMagic)+8)
	if _, err := io.ReadFull(r, b); err != nil {
		return 0, 0, rdvErr("a rank's greeting: %v", err)
	}
	if string(b[:len(rendezvousMagic)]) != rendezvousMagic {
		return 0, 0, rdvErr("a connection that is not a rank of the lab (greeting %q)", b[:len(rendezvousMagic)])
	}
	return int(binary.LittleEndian.Uint32(b[len(rendezvousMagic):])), int(binary.LittleEndian.Uint32(b[len(rendezvousMagic)+4:])), nil
}

// writeFrame writes a payload with its length.
func writeFrame(w io.Writer, p []byte) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
	if _, err := bw.Write(n[:]); err != nil {
		return err
	}
	if _, err := bw.Write(p); err != nil {
		return err
	}
	return bw.Flush()
}

// readFrame reads a payload written by writeFrame, refusing one longer
// than limit bytes.
func readFrame(r io.Reader, limit uint64) ([]byte, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint64(n[:])
	if size > limit {
		return nil, fmt.Errorf("a payload of %d bytes exceeds the limit of %d", size, limit)
	}
	p := make([]byte, size)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, err
	}
	return p, nil
}
