package tools

import (
	"fmt"
	"io"
	"os"
)

// ReadRegular reads at most limit bytes of the regular file at abs (after
// following symlinks) and reports whether it was cut. Devices, FIFOs and
// directories are refused, so a planted /dev/zero link cannot hang or
// exhaust a reader.
func ReadRegular(abs string, limit int64) ([]byte, bool, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", abs)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}
