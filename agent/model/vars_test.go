package model

import (
	"net/http"
	"time"
)

var (
	testClient = &http.Client{}
	sleeps     []time.Duration
)
