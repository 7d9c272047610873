package emulator

import (
	"context"
	"encoding/json"
)

// Query is a query request body: {"query": "...", "parameters": [...]}.
type Query struct {
	Text       string           `json:"query"`
	Parameters []QueryParameter `json:"parameters"`
}

// QueryParameter is one named parameter; a parameter without a value is
// undefined.
type QueryParameter struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// queryResources runs a query over rendered resources with the query
// engine (the one item queries use).
func (s *Service) queryResources(ctx context.Context, docs [][]byte, q Query, page PageRequest) (QueryPage, error) {
	parsed, err := ParseQuery(q.Text)
	if err != nil {
		return QueryPage{}, err
	}
	params := make(map[string]json.RawMessage, len(q.Parameters))
	for _, p := range q.Parameters {
		params[p.Name] = p.Value
	}
	return s.store.QueryDocuments(ctx, docs, QueryItemsParams{Query: parsed, Text: q.Text, Params: params, Page: page, Now: s.clock.Now()})
}

// QueryDatabases runs a query over the databases.
func (s *Service) QueryDatabases(ctx context.Context, q Query, page PageRequest) (QueryPage, error) {
	dbs, err := s.store.ListDatabases(ctx)
	if err != nil {
		return QueryPage{}, err
	}
	docs := make([][]byte, len(dbs))
	for i, d := range dbs {
		docs[i] = d.JSON()
	}
	return s.queryResources(ctx, docs, q, page)
}

// QueryContainers runs a query over the containers of a database.
func (s *Service) QueryContainers(ctx context.Context, dbRef string, q Query, page PageRequest) (Database, QueryPage, error) {
	db, cs, err := s.store.ListContainers(ctx, dbRef)
	if err != nil {
		return Database{}, QueryPage{}, err
	}
	docs := make([][]byte, len(cs))
	for i, c := range cs {
		docs[i] = c.JSON()
	}
	res, err := s.queryResources(ctx, docs, q, page)
	return db, res, err
}

// QueryOffers runs a query over the offers.
func (s *Service) QueryOffers(ctx context.Context, q Query, page PageRequest) (QueryPage, error) {
	offers, err := s.store.ListOffers(ctx)
	if err != nil {
		return QueryPage{}, err
	}
	docs := make([][]byte, len(offers))
	for i, o := range offers {
		docs[i] = o.JSON()
	}
	return s.queryResources(ctx, docs, q, page)
}
