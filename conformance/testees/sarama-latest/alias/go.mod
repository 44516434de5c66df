module github.com/Shopify/sarama

go 1.26.0

require github.com/IBM/sarama v1.61.1
