package datasets

import "strings"

// FormatNPZ is the paper's .npz files: instances (ImportNPZInstances) or
// reference tours (ImportNPZReferenceFile).
const FormatNPZ = "npz"

// ImportFormat is the format of the input file in: format where given,
// else FormatNPZ or FormatCSV by in's extension, else "" (a text benchmark,
// whose format ImportBenchmark detects).
func ImportFormat(in, format string) string {
	switch {
	case format != "":
		return format
	case strings.HasSuffix(in, ".npz"):
		return FormatNPZ
	case strings.HasSuffix(in, ".csv"):
		return FormatCSV
	}
	return ""
}
