// Package talk is the talk service: the assistant that turns a buyer's plain words into a task and
// recommends an offer, built in or backed by a configured model. It acts only through the pipeline.
package talk
