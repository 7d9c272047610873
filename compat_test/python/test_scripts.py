"""Stored procedures, pre- and post-triggers, and user-defined functions in queries."""

import pytest
from azure.cosmos import exceptions

SPROC = {
    "id": "createTwo",
    "body": """function createTwo(prefix) {
        var ctx = getContext(), coll = ctx.getCollection(), out = [];
        ["1", "2"].forEach(function (n) {
            var ok = coll.createDocument(coll.getSelfLink(), {id: prefix + n, pk: "s"}, function (err, doc) {
                if (err) throw err;
            });
            if (!ok) throw new Error("not accepted");
        });
        ctx.getResponse().setBody(prefix + " done");
    }""",
}

FAILING_SPROC = {
    "id": "createThenFail",
    "body": """function createThenFail() {
        var coll = getContext().getCollection();
        coll.createDocument(coll.getSelfLink(), {id: "ghost", pk: "s"}, function (err) { if (err) throw err; });
        throw new Error("boom");
    }""",
}

PRE = {
    "id": "stamp", "triggerType": "Pre", "triggerOperation": "Create",
    "body": """function stamp() {
        var req = getContext().getRequest(), doc = req.getBody();
        doc.stamped = true;
        req.setBody(doc);
    }""",
}

POST = {
    "id": "audit", "triggerType": "Post", "triggerOperation": "All",
    "body": """function audit() {
        var ctx = getContext(), coll = ctx.getCollection(), doc = ctx.getResponse().getBody();
        var ok = coll.upsertDocument(coll.getSelfLink(), {id: "audit-" + doc.id, pk: doc.pk, of: doc.id},
            function (err) { if (err) throw err; });
        if (!ok) throw new Error("audit not accepted");
    }""",
}

UDF = {"id": "tax", "body": "function tax(income) { return income > 1000 ? income * 0.2 : 0; }"}


def test_stored_procedure(container):
    scripts = container.scripts
    scripts.create_stored_procedure(SPROC)
    assert scripts.get_stored_procedure("createTwo")["id"] == "createTwo"
    assert "createTwo" in [s["id"] for s in scripts.list_stored_procedures()]
    assert scripts.execute_stored_procedure("createTwo", partition_key="s", params=["x"]) == "x done"
    assert container.read_item("x1", "s")["pk"] == "s"
    assert container.read_item("x2", "s")["pk"] == "s"

    # a script that throws rolls back what it wrote
    scripts.create_stored_procedure(FAILING_SPROC)
    with pytest.raises(exceptions.CosmosHttpResponseError) as err:
        scripts.execute_stored_procedure("createThenFail", partition_key="s")
    assert err.value.status_code == 400 and "boom" in err.value.message
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("ghost", "s")

    replaced = dict(SPROC, body=SPROC["body"].replace('" done"', '" replaced"'))
    scripts.replace_stored_procedure("createTwo", replaced)
    assert scripts.execute_stored_procedure("createTwo", partition_key="s", params=["y"]) == "y replaced"
    scripts.delete_stored_procedure("createTwo")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        scripts.get_stored_procedure("createTwo")


def test_triggers(container):
    container.scripts.create_trigger(PRE)
    container.scripts.create_trigger(POST)
    assert sorted(t["id"] for t in container.scripts.list_triggers()) == ["audit", "stamp"]
    doc = container.create_item({"id": "t1", "pk": "p"}, pre_trigger_include="stamp", post_trigger_include="audit")
    assert doc["stamped"] is True
    assert container.read_item("audit-t1", "p")["of"] == "t1"
    # without naming them, triggers do not run
    plain = container.create_item({"id": "t2", "pk": "p"})
    assert "stamped" not in plain
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("audit-t2", "p")


def test_udf_in_queries(container):
    container.scripts.create_user_defined_function(UDF)
    assert container.scripts.get_user_defined_function("tax")["id"] == "tax"
    for i, income in enumerate([500, 2000, 5000]):
        container.create_item({"id": f"u{i}", "pk": f"p{i}", "income": income})
    rows = list(container.query_items("SELECT c.id, udf.tax(c.income) AS t FROM c WHERE udf.tax(c.income) > 0",
                                      enable_cross_partition_query=True))
    assert sorted((r["id"], r["t"]) for r in rows) == [("u1", 400), ("u2", 1000)]
    assert list(container.query_items("SELECT VALUE udf.tax(c.income) FROM c", partition_key="p2")) == [1000]
