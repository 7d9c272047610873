-- A query page over iterations (JOIN without ORDER BY, sqlgen nestedPage)
-- checks its time budget between documents: once the page has run for its
-- budget, the check of the next document calls cosmos.page_budget_spent,
-- which ends the statement with SQLSTATE Z9408 and that document's seq as
-- the message. Every document before it has given all its rows to the page
-- by then, so the page ends with them and a continuation that starts at
-- that document (pgstore/query.go, execPage): a selective query resumes
-- where its work stopped instead of answering 408 for a page that found
-- nothing within its budget.
CREATE FUNCTION cosmos.page_budget_spent(seq bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE COST 1 AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'Z9408', MESSAGE = seq::text;
END
$$;
