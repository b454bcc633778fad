package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/exercisedb/exercisedb/pkg/client"
)

// The iterator follows the cursors: every chest or back exercise done
// with a barbell, 25 per request.
func ExampleClient_Exercises() {
	c, err := client.New("https://exercisedb.example.com", "exdb_your_key",
		client.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}))
	if err != nil {
		log.Fatal(err)
	}
	q := client.Query{BodyParts: []string{"chest", "back"}, Equipments: []string{"barbell"}, Limit: 25}
	for x, err := range c.Exercises(context.Background(), q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(x.ExerciseID, x.Name)
	}
}

// Error responses are *client.Error, with the envelope's code and the
// wait Retry-After asks for.
func ExampleError() {
	c, err := client.New("https://exercisedb.example.com", "exdb_your_key")
	if err != nil {
		log.Fatal(err)
	}
	page, err := c.ListExercises(context.Background(), client.Query{Name: "press"})
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == client.CodeTooManyRequests:
		fmt.Println("retry in", apiErr.RetryAfter, "- request", apiErr.RequestID)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(page.Meta.Total, "exercises")
	}
}

// The variations of an exercise, the other members of its movement family
// from the easiest, each with its steps; the iterator follows the cursors.
func ExampleClient_Variations() {
	c, err := client.New("https://exercisedb.example.com", "exdb_your_key")
	if err != nil {
		log.Fatal(err)
	}
	q := client.Query{Include: []client.Field{client.Instructions}, Limit: 25}
	for x, err := range c.Variations(context.Background(), "humnn3ws", q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(x.Name, x.Difficulty, len(x.Instructions), "steps")
	}
}

// What to do instead of the barbell bench press at home: the alternatives
// that need only body weight, best first. Breaking out of the loop sends
// no further request.
func ExampleClient_Alternatives() {
	c, err := client.New("https://exercisedb.example.com", "exdb_your_key")
	if err != nil {
		log.Fatal(err)
	}
	q := client.Query{Equipments: []string{"body weight"}, Include: []client.Field{client.Description}}
	n := 0
	for x, err := range c.Alternatives(context.Background(), "humnn3ws", q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", x.Name, x.Description)
		if n++; n == 3 {
			break
		}
	}
}
