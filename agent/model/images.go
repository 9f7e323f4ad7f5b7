package model

import "fmt"

// MaxRequestImages is the most images one request carries: Anthropic's
// Messages API refuses more than 100, and the oldest are the ones the
// model needs least. Older images are named in their tool results' text.
const MaxRequestImages = 100

// imageSieve decides which tool_result images a request sends: none when
// the model takes none, else the newest MaxRequestImages. It is called
// once per tool_result block, in conversation order.
type imageSieve struct {
	noImages bool
	drop     int // oldest images still to leave out
}

func newImageSieve(msgs []Message, noImages bool) *imageSieve {
	n := 0
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				n += len(b.Images)
			}
		}
	}
	return &imageSieve{noImages: noImages, drop: max(n-MaxRequestImages, 0)}
}

// sift returns the images of b to send and the line its text gets for the
// ones left out ("" when none).
func (s *imageSieve) sift(b Block) ([]Image, string) {
	if len(b.Images) == 0 {
		return nil, ""
	}
	if s.noImages {
		return nil, "\n[the image(s) above are not shown to you: this model is not sent images ([model] images = false)]"
	}
	if s.drop == 0 {
		return b.Images, ""
	}
	cut := min(s.drop, len(b.Images))
	s.drop -= cut
	return b.Images[cut:], fmt.Sprintf("\n[%d of the image(s) above are no longer shown to you: a request carries at most the newest %d]", cut, MaxRequestImages)
}
