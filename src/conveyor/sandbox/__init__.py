"""The sandbox: sessions and commands boxed by bubblewrap, their network through a proxy."""
