package model

import "fmt"

// MaxRequestImages is the most images one request carries: Anthropic's
// Messages API refuses more than 100, and the oldest are the ones the
// model needs least. Older images are named in their tool results' text.
const MaxRequestImages = 100

// MaxRequestImageBytes is the most image data (base64) one request
// carries: Anthropic refuses a request over 32 MB, and a refused request
// would fail every later turn of the session; the text needs room too.
const MaxRequestImageBytes = 20 << 20

// imageSieve decides which tool_result images a request sends: none when
// the model takes none, else the newest MaxRequestImages that fit
// MaxRequestImageBytes together. It is called once per tool_result block,
// in conversation order.
type imageSieve struct {
	noImages bool
	drop     int  // oldest images still to leave out
	bytes    bool // the byte budget, not the count, leaves them out
}

func newImageSieve(msgs []Message, noImages bool) *imageSieve {
	var sizes []int
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				for _, im := range b.Images {
					sizes = append(sizes, len(im.Data))
				}
			}
		}
	}
	byCount := max(len(sizes)-MaxRequestImages, 0)
	byBytes, total := len(sizes), 0
	for byBytes > 0 && total+sizes[byBytes-1] <= MaxRequestImageBytes {
		byBytes--
		total += sizes[byBytes]
	}
	return &imageSieve{noImages: noImages, drop: max(byCount, byBytes), bytes: byBytes > byCount}
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
	if s.bytes {
		return b.Images[cut:], fmt.Sprintf("\n[%d of the image(s) above are no longer shown to you: a request carries at most %d MB of images, the newest]", cut, MaxRequestImageBytes>>20)
	}
	return b.Images[cut:], fmt.Sprintf("\n[%d of the image(s) above are no longer shown to you: a request carries at most the newest %d]", cut, MaxRequestImages)
}
