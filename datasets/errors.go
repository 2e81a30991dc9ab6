package datasets

import (
	"errors"

	"github.com/lmask/lmask/lazymask"
)

func asTourError(err error, te **lazymask.TourError) bool {
	return err != nil && errors.As(err, te)
}

func asFieldError(err error, fe **lazymask.FieldError) bool {
	return err != nil && errors.As(err, fe)
}
