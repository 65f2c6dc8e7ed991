"""The Streamlit front end's shared parts: the palace in use, cached views, safe rendering, the network."""
