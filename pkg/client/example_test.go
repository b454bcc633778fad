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
