"""The API's views, one module per area. Read resources subclass ``api.common.CampaignReadViewSet``;
action endpoints validate an input serializer, call ``api.common.run_action`` and serialize the
result."""
