package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// emulatorKey is the emulator's well-known master key (its default --key).
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// sdkBench runs point operations through the official Go SDK against a
// database and container it creates for the run.
type sdkBench struct {
	client    *azcosmos.Client
	db        *azcosmos.DatabaseClient
	container *azcosmos.ContainerClient
}

// newSDKBench connects to the emulator at endpoint and creates a database
// with a container partitioned on /pk. clients sizes the connection pool.
func newSDKBench(ctx context.Context, endpoint string, clients int) (*sdkBench, error) {
	cred, err := azcosmos.NewKeyCredential(emulatorKey)
	if err != nil {
		return nil, err
	}
	// Trust the emulator's self-signed certificate, as emulatortest does.
	httpClient := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // local emulator with a self-signed certificate
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: clients + 1,
	}}
	client, err := azcosmos.NewClientWithKey(endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{
			Transport: httpClient,
			// Fail rather than retry, so errors show up instead of latency.
			Retry: policy.RetryOptions{MaxRetries: -1},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("SDK client: %w", err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	dbID := "cosmos-bench-" + hex.EncodeToString(suffix)
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
		return nil, fmt.Errorf("SDK: creating database %s: %w", dbID, err)
	}
	b := &sdkBench{client: client}
	if b.db, err = client.NewDatabase(dbID); err != nil {
		return nil, err
	}
	props := azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := b.db.CreateContainer(ctx, props, nil); err != nil {
		return nil, errors.Join(fmt.Errorf("SDK: creating container: %w", err), b.close(ctx))
	}
	if b.container, err = b.db.NewContainer("items"); err != nil {
		return nil, errors.Join(err, b.close(ctx))
	}
	return b, nil
}

// close deletes the run's database (with its container and items).
func (b *sdkBench) close(ctx context.Context) error {
	if _, err := b.db.Delete(ctx, nil); err != nil {
		return fmt.Errorf("SDK: deleting the benchmark database: %w", err)
	}
	return nil
}

// create creates item i. The SDK's default for writes is Prefer:
// return=minimal, so no body comes back.
func (b *sdkBench) create(items *itemSet) opFunc {
	return func(ctx context.Context, i int) error {
		it := items.get(i)
		_, err := b.container.CreateItem(ctx, azcosmos.NewPartitionKeyString(it.pk), it.body, nil)
		return err
	}
}

// read reads item i.
func (b *sdkBench) read(items *itemSet) opFunc {
	return func(ctx context.Context, i int) error {
		it := items.get(i)
		resp, err := b.container.ReadItem(ctx, azcosmos.NewPartitionKeyString(it.pk), it.id, nil)
		if err != nil {
			return err
		}
		if len(resp.Value) == 0 {
			return errors.New("empty body")
		}
		return nil
	}
}

// replace replaces item i with its replacement body.
func (b *sdkBench) replace(items *itemSet) opFunc {
	return func(ctx context.Context, i int) error {
		it := items.get(i)
		_, err := b.container.ReplaceItem(ctx, azcosmos.NewPartitionKeyString(it.pk), it.id, it.replacement, nil)
		return err
	}
}
