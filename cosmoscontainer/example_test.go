package cosmoscontainer_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/testcontainers/testcontainers-go"

	"github.com/cosmos-emulator/cosmos-emulator/cosmoscontainer"
)

// Start the emulator image built with `docker build -t cosmos-emulator:local .`,
// use it through the Go SDK and move its clock to expire an item. (Not run
// by go test: it needs a Docker engine and the image.)
func ExampleRun() {
	ctx := context.Background()
	ctr, err := cosmoscontainer.Run(ctx, "cosmos-emulator:local")
	defer func() {
		if err := testcontainers.TerminateContainer(ctr.Docker()); err != nil {
			log.Print(err)
		}
	}()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ctr.ConnectionString()) // AccountEndpoint=http://localhost:49153;AccountKey=C2y6...;

	client, err := ctr.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		log.Fatal(err)
	}
	db, _ := client.NewDatabase("shop")
	ttl := int32(60)
	_, err = db.CreateContainer(ctx, azcosmos.ContainerProperties{
		ID:                     "carts",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/user"}},
		DefaultTimeToLive:      &ttl,
	}, nil)
	if err != nil {
		log.Fatal(err)
	}

	// Items of carts expire 60 s after their last write: move the
	// emulator's clock instead of sleeping, then sweep them away.
	if _, err := ctr.AdvanceClock(ctx, 2*time.Minute); err != nil {
		log.Fatal(err)
	}
	if _, err := ctr.Sweep(ctx); err != nil {
		log.Fatal(err)
	}
	stats, err := ctr.Stats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(stats.Containers), "container(s)")
}

// Build the image from the repository's Dockerfile instead (here with
// local base images, as on a machine without a registry) and serve https.
func ExampleWithDockerfile() {
	ctx := context.Background()
	ctr, err := cosmoscontainer.Run(ctx, "",
		cosmoscontainer.WithDockerfile("..", map[string]string{
			"BUILD_IMAGE":   "cosmos-emulator-ci/golang:1.26.8-bookworm",
			"RUNTIME_IMAGE": "cosmos-emulator-ci/debian:bookworm-minbase",
		}),
		cosmoscontainer.WithProtocol("https"),
		testcontainers.WithEnv(map[string]string{"COSMOS_EMULATOR_LOG_LEVEL": "debug"}),
	)
	defer testcontainers.TerminateContainer(ctr.Docker()) //nolint:errcheck
	if err != nil {
		log.Fatal(err)
	}
	// The client verifies the container's self-signed certificate.
	client, err := ctr.NewClient(nil)
	if err != nil {
		log.Fatal(err)
	}
	_ = client
	fmt.Printf("%s", ctr.CertificatePEM()) // for SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, ...
}
