package datasets

import (
	"errors"

	"github.com/lmask/lmask/lazymask"
)

// ErrNoTour is returned by helpers that need a tour when a solution has none.
var ErrNoTour = errors.New("solution has no tour")

func asTourError(err error, te **lazymask.TourError) bool {
	return err != nil && errors.As(err, te)
}

func asFieldError(err error, fe **lazymask.FieldError) bool {
	return err != nil && errors.As(err, fe)
}
