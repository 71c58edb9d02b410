"""The embedded forge: a GitHub stand-in (REST, GraphQL, git over HTTP, webhooks, CI,
web pages) on SQLite and bare git repositories, for the demo, the tests and `conveyor
forge`. Nothing of the running system imports it; it imports no client side.

Parts, each importing only those below it: `app` (the ASGI app, middleware, the
in-process `ForgeServer`) > `rest` | `graphql` | `web` (the routes and pages) >
`hooks` (webhooks and CI) > `repos` (git repositories) > `model` (the store).
"""
