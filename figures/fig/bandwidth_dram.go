package fig

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// LoadDRAMDevice returns the card a DRAMFile was measured on (its device
// field), for BandwidthOptions.DRAMDevice, so that a roofline placed by
// that traffic names the card it comes from.
func LoadDRAMDevice(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("fig: DRAM traffic: %w", err)
	}
	var f DRAMFile
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("fig: DRAM traffic %s: %w", path, err)
	}
	if strings.TrimSpace(f.Device) == "" {
		return "", fmt.Errorf("fig: DRAM traffic %s: no device named: %w", path, ErrBench)
	}
	return f.Device, nil
}
